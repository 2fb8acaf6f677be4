import type { Dialect } from "../dialects/dialect";
import type { Usage } from "../pricing/cost";

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

/**
 * Normalises an upstream usage object. OpenAI's prompt_tokens include cached reads;
 * Anthropic's input_tokens exclude both cache reads and cache writes.
 */
export function normalizeUsage(dialect: Dialect, raw: unknown): Usage | undefined {
  const usage = record(raw);
  if (!usage) return undefined;
  if (dialect === "openai") {
    const prompt = num(usage.prompt_tokens);
    const cached = Math.min(num(record(usage.prompt_tokens_details)?.cached_tokens), prompt);
    return {
      inputTokens: prompt - cached,
      outputTokens: num(usage.completion_tokens),
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    };
  }
  return {
    inputTokens: num(usage.input_tokens),
    outputTokens: num(usage.output_tokens),
    cacheReadTokens: num(usage.cache_read_input_tokens),
    cacheWriteTokens: num(usage.cache_creation_input_tokens),
  };
}

/** Usage from a complete non-streaming response body. */
export function usageFromResponseBody(dialect: Dialect, body: unknown): Usage | undefined {
  return normalizeUsage(dialect, record(body)?.usage);
}
