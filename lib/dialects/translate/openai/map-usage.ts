import type { Usage } from "../ir";
import type { OpenaiUsage } from "./schemas";

/**
 * OpenAI's prompt_tokens INCLUDES cached tokens (prompt_tokens_details.cached_tokens) and,
 * where reported, cache writes (cache_write_tokens); the IR counts them apart.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 */
export function parseOpenaiUsage(usage: OpenaiUsage | null | undefined): Usage {
  const promptTokens = usage?.prompt_tokens ?? 0;
  const cacheReadTokens = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWriteTokens = usage?.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    inputTokens: Math.max(0, promptTokens - cacheReadTokens - cacheWriteTokens),
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
  };
}

/** The reasoning share of the output, when the upstream reports it. */
export function parseOpenaiReasoningTokens(usage: OpenaiUsage | null | undefined): number | undefined {
  return usage?.completion_tokens_details?.reasoning_tokens ?? undefined;
}

export interface OpenaiUsageBody {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
}

export function renderOpenaiUsage(usage: Usage): OpenaiUsageBody {
  const promptTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: promptTokens + usage.outputTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cacheReadTokens,
      // Only emitted when non-zero: plain OpenAI clients have never seen this field.
      ...(usage.cacheWriteTokens > 0 ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
    },
  };
}
