import { tokenCountSchema } from "@pod-gateway/contracts/bounded-values";
import { z } from "zod";
import type { OpenaiChatUsage } from "./openai-chat-usage";
import { readWith, type UsageReading } from "./usage-reading";

const count = tokenCountSchema.nullish();

const responsesUsageSchema = z.object({
  input_tokens: count,
  input_tokens_details: z.object({ cached_tokens: count }).nullish(),
  output_tokens: count,
  output_tokens_details: z.object({ reasoning_tokens: count }).nullish(),
});

/**
 * Reads OpenAI Responses API `usage`. As in Chat Completions, `input_tokens` INCLUDES cached
 * reads (`input_tokens_details.cached_tokens`); the result counts them apart.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
export function readResponsesUsage(raw: unknown): UsageReading<OpenaiChatUsage> {
  return readWith(responsesUsageSchema, raw, (usage) => {
    const input = usage.input_tokens ?? 0;
    const cacheReadTokens = usage.input_tokens_details?.cached_tokens ?? 0;
    if (cacheReadTokens > input) return "usage: cached_tokens exceed input_tokens";
    const outputTokens = usage.output_tokens ?? 0;
    const reasoningTokens = usage.output_tokens_details?.reasoning_tokens ?? undefined;
    if (reasoningTokens !== undefined && reasoningTokens > outputTokens)
      return "usage: reasoning_tokens exceed output_tokens";
    return {
      usage: { inputTokens: input - cacheReadTokens, outputTokens, cacheReadTokens, cacheWriteTokens: 0 },
      reasoningTokens,
    };
  });
}
