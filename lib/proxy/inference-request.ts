import type { CallerDialect } from "../dialects/dialect";
import { parseResponsesRequest } from "../dialects/translate/responses/parse-request";
import { badRequest } from "../errors/gateway-error";

/** A validated inference call as the caller sent it. */
export interface InferenceRequest {
  dialect: CallerDialect;
  body: Record<string, unknown>;
  rawBody: string;
  model: string;
  stream: boolean;
  /** The caller's output limit, if it gave one. */
  maxTokens: number | undefined;
  /** Which field carried it, so a bounded value goes back into the same field. */
  maxTokensField: "max_tokens" | "max_completion_tokens" | "max_output_tokens";
  /** OpenAI only: the caller asked for the final usage chunk. */
  includeUsage: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function positiveInteger(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw badRequest(`${field} must be a positive integer`, { param: field });
  }
  return value;
}

/** A Responses API call is validated whole by its codec, so a bad one is refused before any hold. */
function parseResponsesInference(body: Record<string, unknown>, rawBody: string): InferenceRequest {
  const { request } = parseResponsesRequest(body);
  return {
    dialect: "responses",
    body,
    rawBody,
    model: request.model,
    stream: request.stream,
    maxTokens: request.maxTokens,
    maxTokensField: "max_output_tokens",
    includeUsage: false,
  };
}

export function parseInferenceRequest(
  dialect: CallerDialect,
  parsed: unknown,
  rawBody: string,
): InferenceRequest {
  if (!isRecord(parsed)) throw badRequest("request body must be a JSON object");
  if (dialect === "responses") return parseResponsesInference(parsed, rawBody);
  const model = parsed.model;
  if (typeof model !== "string" || model.trim() === "")
    throw badRequest("model is required", { param: "model" });
  if (!Array.isArray(parsed.messages)) throw badRequest("messages must be an array", { param: "messages" });
  if (parsed.stream !== undefined && typeof parsed.stream !== "boolean") {
    throw badRequest("stream must be a boolean", { param: "stream" });
  }
  const completionTokens = positiveInteger(parsed.max_completion_tokens, "max_completion_tokens");
  const plainTokens = positiveInteger(parsed.max_tokens, "max_tokens");
  const useCompletionField = dialect === "openai" && completionTokens !== undefined;
  const streamOptions = isRecord(parsed.stream_options) ? parsed.stream_options : undefined;
  return {
    dialect,
    body: parsed,
    rawBody,
    model,
    stream: parsed.stream === true,
    maxTokens: useCompletionField ? completionTokens : plainTokens,
    maxTokensField: useCompletionField ? "max_completion_tokens" : "max_tokens",
    includeUsage: dialect === "openai" && streamOptions?.include_usage === true,
  };
}

/**
 * An upper-bound guess of the prompt's tokens for the hold: real tokenizers average
 * about four bytes a token, so half the body's bytes is generous; the context window
 * is a hard ceiling because the upstream refuses anything longer.
 */
export function estimateInputTokens(request: InferenceRequest, contextWindow: number): number {
  return Math.min(Math.ceil(Buffer.byteLength(request.rawBody) / 2) + 16, contextWindow);
}

/** A closer estimate for billing an aborted stream that never reported usage. */
export function approximatePromptTokens(request: InferenceRequest): number {
  return Math.ceil(Buffer.byteLength(request.rawBody) / 4);
}
