import type { Dialect } from "../dialects/dialect";
import { renderErrorBody } from "../dialects/render-error";
import { type GatewayError, toGatewayError } from "../errors/gateway-error";
import { log } from "../log";

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Renders any thrown value as an error response in the caller's dialect. */
export function errorResponse(
  dialect: Dialect,
  thrown: unknown,
  headers: Record<string, string> = {},
): Response {
  const error: GatewayError = toGatewayError(thrown);
  if (error.status >= 500 && error.type === "internal_error")
    log.error("unhandled error", { error: error.cause });
  const requestIdHeader = dialect === "anthropic" ? "request-id" : "x-request-id";
  const merged: Record<string, string> = { ...error.headers, ...headers };
  const requestId = merged["x-request-id"];
  if (dialect === "anthropic" && requestId) {
    delete merged["x-request-id"];
    merged[requestIdHeader] = requestId;
  }
  return jsonResponse(renderErrorBody(dialect, error), error.status, merged);
}
