import { type ErrorType, GatewayError } from "../../errors/gateway-error";
import { renderErrorBody } from "../render-error";
import { parseAnthropicError, renderAnthropicError } from "./anthropic/error-envelope";
import type { ErrorInfo } from "./error-kind";
import type { Dialect } from "./ir";
import { safeParseJson } from "./json-value";
import { parseOpenaiError, renderOpenaiError } from "./openai/error-envelope";
import { encodeJsonFrame } from "./sse";

/**
 * What an upstream's error body says, read as its dialect's envelope. A body that is not a
 * recognisable envelope (an HTML error page, a proxy's text) yields a generic message:
 * upstream bytes are never echoed raw to a caller.
 */
export function parseUpstreamError(from: Dialect, body: unknown, status: number): ErrorInfo {
  const json = typeof body === "string" ? safeParseJson(body) : body;
  return from === "openai" ? parseOpenaiError(json, status) : parseAnthropicError(json, status);
}

/**
 * An upstream error body of dialect `from` (parsed JSON or raw text) → the error envelope
 * of dialect `to`. The HTTP status is left to the caller; it also guides the mapping.
 * Bodies that are not a recognisable envelope become a generic message, never echoed raw.
 */
export function translateErrorBody(
  from: Dialect,
  to: Dialect,
  body: unknown,
  status: number,
): Record<string, unknown> {
  const info = parseUpstreamError(from, body, status);
  return to === "openai" ? renderOpenaiError(info) : renderAnthropicError(info);
}

/**
 * A failure the gateway detects after the first byte went out (a stall, a cut connection, a
 * limit), put in-band in a stream of dialect `to`. The body is the one renderer's, the same a
 * response before the first byte carries (`@pod-gateway/contracts/gateway-errors`), so a client
 * reads one kind for one failure whenever it happens; only the framing is the stream's (an
 * OpenAI `data:` frame, an Anthropic `event: error`). Both SDKs throw an APIError on these.
 */
export function encodeStreamError(to: Dialect, kind: ErrorType, message: string): Uint8Array {
  const body = renderErrorBody(to, new GatewayError(kind, message));
  return to === "openai" ? encodeJsonFrame(body) : encodeJsonFrame(body, "error");
}
