import { parseAnthropicRequest } from "./anthropic/parse-request";
import { defaultMaxTokens, renderAnthropicRequest } from "./anthropic/render-request";
import type { CallerDialect, ChatRequest, Dialect } from "./ir";
import { isRecord } from "./json-value";
import { parseOpenaiRequest } from "./openai/parse-request";
import { renderOpenaiRequest } from "./openai/render-request";
import { parseResponsesRequest } from "./responses/parse-request";

/**
 * Same dialect: forward the body untouched except for what the gateway must control,
 * so vendor-specific parameters we do not model still reach the upstream.
 */
function prepareSameDialect(
  dialect: Dialect,
  body: Record<string, unknown>,
  model: string,
): Record<string, unknown> {
  if (dialect === "anthropic") return { ...body, model, max_tokens: body.max_tokens ?? defaultMaxTokens };
  if (body.stream !== true) return { ...body, model };
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  // Billing needs the final usage chunk whether or not the caller asked for it.
  return { ...body, model, stream_options: { ...streamOptions, include_usage: true } };
}

/** A caller's body as IR; each codec validates its own wire format. */
function parseCallerRequest(from: CallerDialect, body: unknown): ChatRequest {
  switch (from) {
    case "openai":
      return parseOpenaiRequest(body);
    case "anthropic":
      return parseAnthropicRequest(body);
    case "responses":
      return parseResponsesRequest(body).request;
  }
}

/**
 * Request body of dialect `from` (already JSON-parsed) → request body for an upstream
 * speaking `to`, with `model` replaced by `upstreamModel`.
 * @throws GatewayError bad_request when the body cannot be expressed in the other dialect.
 */
export function translateRequest(
  from: CallerDialect,
  to: Dialect,
  body: Record<string, unknown>,
  upstreamModel: string,
): Record<string, unknown> {
  if (from === to) return prepareSameDialect(to, body, upstreamModel);
  const request = { ...parseCallerRequest(from, body), model: upstreamModel };
  return to === "openai" ? renderOpenaiRequest(request) : renderAnthropicRequest(request);
}
