import { badRequest } from "../errors/gateway-error";
import type { CallerDialect } from "./dialect";
import { parseResponsesRequest } from "./translate/responses/parse-request";
import { scanInput } from "./unsized-input";
import { callerFormats } from "./wire-format";

/** A validated inference call as the caller sent it. */
export interface InferenceRequest {
  dialect: CallerDialect;
  body: Record<string, unknown>;
  rawBody: string;
  model: string;
  stream: boolean;
  /** The caller's output limit, if it gave one; the smaller one when it gave both fields. */
  maxTokens: number | undefined;
  /** Which field the caller used (max_completion_tokens wins when both were sent). */
  maxTokensField: "max_tokens" | "max_completion_tokens" | "max_output_tokens";
  /** OpenAI `n`: every choice is billed, so the hold covers the output limit this many times. */
  choices: number;
  /**
   * The body references input the byte estimate cannot size (an image or file by URL or id):
   * the hold then prices the input at the model's whole context window.
   */
  unsizedInput: boolean;
  /** The body holds an image part: refused for a model without vision. */
  imageInput: boolean;
  /** The caller offered tools: refused for a model without tool calling. */
  toolsOffered: boolean;
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
  const scan = scanInput("responses", body);
  return {
    dialect: "responses",
    body,
    rawBody,
    model: request.model,
    stream: request.stream,
    maxTokens: request.maxTokens,
    maxTokensField: "max_output_tokens",
    choices: 1,
    unsizedInput: scan.unsized,
    imageInput: scan.images,
    toolsOffered: request.tools.length > 0,
    includeUsage: false,
  };
}

export function parseInferenceRequest(
  dialect: CallerDialect,
  parsed: unknown,
  rawBody: string,
): InferenceRequest {
  if (!isRecord(parsed)) throw badRequest("request body must be a JSON object");
  if (callerFormats[dialect].requestShape === "responses") return parseResponsesInference(parsed, rawBody);
  const model = parsed.model;
  if (typeof model !== "string" || model.trim() === "")
    throw badRequest("model is required", { param: "model" });
  if (!Array.isArray(parsed.messages)) throw badRequest("messages must be an array", { param: "messages" });
  if (parsed.stream !== undefined && typeof parsed.stream !== "boolean") {
    throw badRequest("stream must be a boolean", { param: "stream" });
  }
  const format = callerFormats[dialect];
  const completionTokens = format.outputLimitFields.includes("max_completion_tokens")
    ? positiveInteger(parsed.max_completion_tokens, "max_completion_tokens")
    : undefined;
  const plainTokens = positiveInteger(parsed.max_tokens, "max_tokens");
  const choices = format.maxChoices > 1 ? (positiveInteger(parsed.n, "n") ?? 1) : 1;
  if (choices > format.maxChoices) throw badRequest(`n must be at most ${format.maxChoices}`, { param: "n" });
  const limits = [completionTokens, plainTokens].filter((value) => value !== undefined);
  const streamOptions = isRecord(parsed.stream_options) ? parsed.stream_options : undefined;
  const scan = scanInput(dialect, parsed);
  return {
    dialect,
    body: parsed,
    rawBody,
    model,
    stream: parsed.stream === true,
    // Upstreams differ in which field they honour, so only the smaller is ever forwarded.
    maxTokens: limits.length > 0 ? Math.min(...limits) : undefined,
    maxTokensField: completionTokens !== undefined ? "max_completion_tokens" : "max_tokens",
    choices,
    unsizedInput: scan.unsized,
    imageInput: scan.images,
    toolsOffered: Array.isArray(parsed.tools) && parsed.tools.length > 0,
    includeUsage: format.streamUsageOnRequest && streamOptions?.include_usage === true,
  };
}

/**
 * An upper-bound guess of the prompt's tokens for the hold: real tokenizers average
 * about four bytes a token, so half the body's bytes is generous; the context window
 * is a hard ceiling because the upstream refuses anything longer. Input fetched by the
 * upstream (an image or file URL) has no bytes here, so it is priced at that ceiling.
 */
export function estimateInputTokens(request: InferenceRequest, contextWindow: number): number {
  if (request.unsizedInput) return contextWindow;
  return Math.min(Math.ceil(Buffer.byteLength(request.rawBody) / 2) + 16, contextWindow);
}
