import type { Usage } from "../ir";
import type { AnthropicUsage } from "./schemas";

/**
 * Anthropic's input_tokens EXCLUDES cache reads and cache writes, which it reports apart.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */
export function parseAnthropicUsage(usage: AnthropicUsage | null | undefined): Usage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
  };
}

/** Streams report usage piecewise (message_start, then cumulative message_delta); later values win. */
export function mergeAnthropicUsage(current: Usage, update: AnthropicUsage | null | undefined): Usage {
  return {
    inputTokens: update?.input_tokens ?? current.inputTokens,
    outputTokens: update?.output_tokens ?? current.outputTokens,
    cacheReadTokens: update?.cache_read_input_tokens ?? current.cacheReadTokens,
    cacheWriteTokens: update?.cache_creation_input_tokens ?? current.cacheWriteTokens,
  };
}

export interface AnthropicUsageBody {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export function renderAnthropicUsage(usage: Usage): AnthropicUsageBody {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
  };
}
