import { tokenCountSchema } from "@pod-gateway/contracts/bounded-values";
import { z } from "zod";
import type { Usage } from "../../pricing/cost";
import { readWith, type UsageReading } from "./usage-reading";

const count = tokenCountSchema.nullish();

const openaiChatUsageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  prompt_tokens_details: z.object({ cached_tokens: count, cache_write_tokens: count }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: count }).nullish(),
});

export interface OpenaiChatUsage {
  usage: Usage;
  /** The reasoning share of the output, when the upstream reports it. */
  reasoningTokens: number | undefined;
}

/**
 * Reads OpenAI Chat Completions `usage` (a body's or a stream chunk's). `prompt_tokens`
 * INCLUDES cached reads (`prompt_tokens_details.cached_tokens`) and, where reported, cache
 * writes (`cache_write_tokens`); the result counts them apart. Every figure is a bounded
 * integer, and the parts may not exceed the whole.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 */
export function readOpenaiChatUsage(raw: unknown): UsageReading<OpenaiChatUsage> {
  return readWith(openaiChatUsageSchema, raw, (usage) => {
    const promptTokens = usage.prompt_tokens ?? 0;
    const cacheReadTokens = usage.prompt_tokens_details?.cached_tokens ?? 0;
    const cacheWriteTokens = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
    if (cacheReadTokens + cacheWriteTokens > promptTokens)
      return "usage: cached and cache-written tokens exceed prompt_tokens";
    const outputTokens = usage.completion_tokens ?? 0;
    const reasoningTokens = usage.completion_tokens_details?.reasoning_tokens ?? undefined;
    if (reasoningTokens !== undefined && reasoningTokens > outputTokens)
      return "usage: reasoning_tokens exceed completion_tokens";
    return {
      usage: {
        inputTokens: promptTokens - cacheReadTokens - cacheWriteTokens,
        outputTokens,
        cacheReadTokens,
        cacheWriteTokens,
      },
      reasoningTokens,
    };
  });
}
