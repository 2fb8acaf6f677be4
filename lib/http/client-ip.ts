/**
 * The header carrying the caller's address to handlers. Only the gateway's own adapters
 * set it (node-adapter from the socket, the Next route adapter from a trusted proxy's
 * X-Forwarded-For); a copy sent by a client is always dropped first.
 */
export const clientIpHeader = "x-pod-client-ip";

import type { ApiRequest } from "./api-request";

export function clientIp(request: ApiRequest): string {
  return request.headers.get(clientIpHeader) ?? "unknown";
}

/**
 * For runtimes that do not expose the socket (Next route handlers): the first
 * X-Forwarded-For hop when a trusted proxy sets it, else one shared bucket, since a
 * client can write X-Forwarded-For itself and must not pick its own rate-limit key.
 */
export function clientIpFromForwarded(headers: Headers, trustProxy: boolean): string {
  const forwarded = trustProxy ? headers.get("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
  return forwarded || "unknown";
}
