import type { Dialect } from "../dialects/dialect";
import { renderErrorBody } from "../dialects/render-error";
import { callerFormats } from "../dialects/wire-format";
import { type GatewayError, toGatewayError } from "../errors/gateway-error";
import { log } from "../log";
import { BufferedResponse } from "./buffered-response";

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new BufferedResponse(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The header a dialect's SDK reads the request id from. */
export function requestIdHeader(dialect: Dialect): "request-id" | "x-request-id" {
  return callerFormats[dialect].requestIdHeader;
}

/**
 * Renders any thrown value as an error response in the caller's dialect: the one error
 * renderer of the gateway. The request id goes in the dialect's header and in the body.
 */
export function errorResponse(
  dialect: Dialect,
  thrown: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  const error: GatewayError = toGatewayError(thrown);
  if (error.status >= 500 && error.type === "internal_error")
    log.error("unhandled error", { requestId, error: error.cause });
  const merged: Record<string, string> = { ...error.headers, ...headers };
  delete merged["x-request-id"];
  delete merged["request-id"];
  merged[requestIdHeader(dialect)] = requestId;
  return jsonResponse(renderErrorBody(dialect, error, requestId), error.status, merged);
}
