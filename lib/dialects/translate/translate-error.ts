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
 * An error to put in-band in a stream of dialect `to`, after the first byte went out.
 * `type` is used verbatim (the caller's vocabulary); both SDKs throw an APIError on these.
 */
export function encodeStreamError(to: Dialect, type: string, message: string): Uint8Array {
  if (to === "openai") return encodeJsonFrame({ error: { message, type, param: null, code: null } });
  return encodeJsonFrame({ type: "error", error: { type, message } }, "error");
}
