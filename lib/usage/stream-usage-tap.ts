import type { Dialect } from "../dialects/dialect";
import type { Usage } from "../pricing/cost";
import { normalizeUsage } from "./usage-from-body";

export interface FrameVerdict {
  /** The frame is the usage-only chunk the gateway asked for on the caller's behalf. */
  injectedUsageChunk: boolean;
}

/**
 * Watches a stream's frames for usage, the terminal event and an in-band error, without
 * changing them. JSON is only parsed for frames that can carry what we need.
 */
export class StreamUsageTap {
  readonly dialect: Dialect;
  usage: Usage | undefined;
  /** Content deltas seen: the fallback estimate of output tokens if no usage ever arrives. */
  deltaCount = 0;
  sawTerminal = false;
  upstreamError: string | undefined;

  /** Anthropic: message_delta reported the output count (message_start's is a placeholder). */
  #outputReported = false;

  constructor(dialect: Dialect) {
    this.dialect = dialect;
  }

  /**
   * The usage to bill. An Anthropic stream that ended before its message_delta (client
   * abort, upstream cut, stall) only has message_start's placeholder output count, so the
   * deltas seen stand in for it, as they do for an OpenAI stream that never sent usage.
   */
  billableUsage(): Usage | undefined {
    const usage = this.usage;
    if (!usage || this.dialect !== "anthropic" || this.#outputReported) return usage;
    return { ...usage, outputTokens: Math.max(usage.outputTokens, this.deltaCount) };
  }

  inspect(message: { event?: string | undefined; data: string }): FrameVerdict {
    const { event, data } = message;
    return this.dialect === "openai" ? this.#inspectOpenAI(data) : this.#inspectAnthropic(event, data);
  }

  #inspectOpenAI(data: string): FrameVerdict {
    if (data === "[DONE]") {
      this.sawTerminal = true;
      return { injectedUsageChunk: false };
    }
    if (data.includes('"delta"')) this.deltaCount += 1;
    const mayCarry = data.includes('"usage"') || data.includes('"error"');
    if (!mayCarry) return { injectedUsageChunk: false };
    const chunk = safeParse(data);
    if (!chunk) return { injectedUsageChunk: false };
    if (chunk.error) this.upstreamError = errorMessage(chunk.error);
    const usage = normalizeUsage("openai", chunk.usage);
    if (!usage) return { injectedUsageChunk: false };
    this.usage = usage;
    const choices = chunk.choices;
    return { injectedUsageChunk: Array.isArray(choices) && choices.length === 0 };
  }

  #inspectAnthropic(event: string | undefined, data: string): FrameVerdict {
    if (event === "content_block_delta") {
      this.deltaCount += 1;
      return { injectedUsageChunk: false };
    }
    if (event === "message_stop") this.sawTerminal = true;
    if (event === "error") this.upstreamError = errorMessage(safeParse(data)?.error);
    if (event !== "message_start" && event !== "message_delta") return { injectedUsageChunk: false };
    const payload = safeParse(data);
    const raw =
      event === "message_start"
        ? (payload?.message as Record<string, unknown> | undefined)?.usage
        : payload?.usage;
    const update = normalizeUsage("anthropic", raw);
    if (!update) return { injectedUsageChunk: false };
    if (event === "message_delta" && typeof (raw as Record<string, unknown>).output_tokens === "number")
      this.#outputReported = true;
    // message_delta repeats or extends the counts of message_start; keep the largest of each.
    const previous = this.usage;
    this.usage = previous
      ? {
          inputTokens: Math.max(previous.inputTokens, update.inputTokens),
          outputTokens: Math.max(previous.outputTokens, update.outputTokens),
          cacheReadTokens: Math.max(previous.cacheReadTokens, update.cacheReadTokens),
          cacheWriteTokens: Math.max(previous.cacheWriteTokens, update.cacheWriteTokens),
        }
      : update;
    return { injectedUsageChunk: false };
  }
}

function safeParse(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function errorMessage(error: unknown): string {
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message);
  return "upstream error";
}
