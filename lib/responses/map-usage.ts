import type { ChatUsage } from "./chat-response-schema";
import type { ResponsesUsage } from "./wire-types";

/**
 * Chat usage → Responses usage. Both count cached tokens inside the input total and
 * reasoning tokens inside the output total, so the numbers carry over unchanged.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
export function mapUsage(usage: ChatUsage | null | undefined): ResponsesUsage | null {
  if (!usage) return null;
  const input = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens ?? input + output,
  };
}
