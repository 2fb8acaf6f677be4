import { tokenCountSchema } from "@pod-gateway/contracts/bounded-values";
import { z } from "zod";
import type { Usage } from "../../pricing/cost";
import { readWith, type UsageReading } from "./usage-reading";

const count = tokenCountSchema.nullish();

const anthropicUsageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
});

/** The figures one Anthropic usage object carries; a stream reports them piecewise. */
export type AnthropicUsageFields = Partial<Usage>;

function defined(fields: Record<keyof Usage, number | null | undefined>): AnthropicUsageFields {
  const out: AnthropicUsageFields = {};
  for (const [key, value] of Object.entries(fields) as Array<[keyof Usage, number | null | undefined]>)
    if (value !== null && value !== undefined) out[key] = value;
  return out;
}

/**
 * Reads Anthropic Messages `usage` (a message's, or a stream's message_start / message_delta).
 * `input_tokens` EXCLUDES cache reads and cache writes, which are reported apart. Only the
 * fields present are returned, so a stream's later figures can replace earlier ones.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */
export function readAnthropicUsageFields(raw: unknown): UsageReading<AnthropicUsageFields> {
  return readWith(anthropicUsageSchema, raw, (usage) =>
    defined({
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens,
      cacheWriteTokens: usage.cache_creation_input_tokens,
    }),
  );
}

/**
 * A stream's usage so far with a new report merged in: message_start carries the input and
 * cache counts and a placeholder output count; message_delta's counts are cumulative, so a
 * figure reported later replaces the earlier one.
 */
export function mergeAnthropicUsage(current: Usage, update: AnthropicUsageFields): Usage {
  return { ...current, ...update };
}

/** A whole message's usage: missing figures are zero. */
export function readAnthropicUsage(raw: unknown): UsageReading<Usage> {
  const fields = readAnthropicUsageFields(raw);
  if (fields.type !== "read") return fields;
  return {
    type: "read",
    value: mergeAnthropicUsage(
      { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      fields.value,
    ),
  };
}
