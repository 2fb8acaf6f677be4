import type { Usage } from "../ir";

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
