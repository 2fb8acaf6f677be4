import { badRequest } from "../../errors/gateway-error";
import { parseAnthropicRequest } from "./anthropic/parse-request";
import { defaultMaxTokens, renderAnthropicRequest } from "./anthropic/render-request";
import { refuseUntranslatableFields } from "./caller-fields";
import type { CallerDialect, ChatRequest, Dialect } from "./ir";
import { isRecord } from "./json-value";
import { parseOpenaiRequest } from "./openai/parse-request";
import { renderOpenaiRequest } from "./openai/render-request";
import { parseResponsesRequest } from "./responses/parse-request";
import { type TargetModel, unknownTargetModel } from "./target-model";

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

const reasoningField: Record<CallerDialect, string> = {
  openai: "reasoning_effort",
  anthropic: "thinking",
  responses: "reasoning",
};

/**
 * A reasoning setting for a model that does not reason: refused, except from the Responses
 * API, whose clients (Codex) send one by default and whose unknown settings are ignored.
 */
function withoutUnusableReasoning(
  from: CallerDialect,
  request: ChatRequest,
  target: TargetModel,
): ChatRequest {
  if (!request.reasoning || target.reasoning) return request;
  if (from !== "responses") {
    const field = reasoningField[from];
    throw badRequest(`${field} cannot be sent to this model: it has no reasoning setting`, { param: field });
  }
  const { reasoning: _unused, ...rest } = request;
  return rest;
}

/** The caller's body as IR for an upstream of the other format, refusing what cannot be expressed. */
export function callerRequestAsIr(from: CallerDialect, body: Record<string, unknown>): ChatRequest {
  if (from !== "responses") refuseUntranslatableFields(from, body);
  return parseCallerRequest(from, body);
}

/**
 * Request body of dialect `from` (already JSON-parsed) → request body for an upstream
 * speaking `to`, with `model` replaced by `upstreamModel`. `target` is what the catalog
 * knows of the model (whether it reasons, has native structured output).
 * @throws GatewayError bad_request when the body cannot be expressed in the other dialect.
 */
export function translateRequest(
  from: CallerDialect,
  to: Dialect,
  body: Record<string, unknown>,
  upstreamModel: string,
  target: TargetModel = unknownTargetModel,
): Record<string, unknown> {
  if (from === to) return prepareSameDialect(to, body, upstreamModel);
  const parsed = { ...callerRequestAsIr(from, body), model: upstreamModel };
  const request = withoutUnusableReasoning(from, parsed, target);
  return to === "openai" ? renderOpenaiRequest(request) : renderAnthropicRequest(request, target);
}
