import type { Usage } from "../ir";
import type { ResponsesUsage } from "./wire-types";

/**
 * IR usage → Responses usage. Responses counts cached and cache-written tokens inside
 * `input_tokens` (as Chat Completions does); the IR keeps them apart.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
export function renderResponsesUsage(usage: Usage, reasoningTokens = 0): ResponsesUsage {
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: input + usage.outputTokens,
  };
}
