import type { Dialect } from "../dialects/dialect";
import { mergeAnthropicUsage, readAnthropicUsageFields } from "../dialects/usage/anthropic-messages-usage";
import { readOpenaiChatUsage } from "../dialects/usage/openai-chat-usage";
import { emptyUsage } from "../pricing/cost";
import { RelayedContent } from "./relayed-content";
import { absentClaim, claimOf, type UsageClaim } from "./usage-claim";

export interface FrameVerdict {
  /** The frame is the usage-only chunk the gateway asked for on the caller's behalf. */
  injectedUsageChunk: boolean;
}

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function parse(data: string): Json | undefined {
  try {
    return record(JSON.parse(data));
  } catch {
    return undefined;
  }
}

function errorMessage(error: unknown): string {
  const message = record(error)?.message;
  return typeof message === "string" ? message.slice(0, 500) : "upstream error";
}

/**
 * Watches a stream's frames without changing them: the usage it claims (through the same
 * bounded readers translation uses), the content it carries to the caller (what the gateway
 * meters), the terminal event and an in-band error.
 */
export class StreamUsageTap {
  readonly dialect: Dialect;
  claim: UsageClaim = absentClaim;
  readonly content = new RelayedContent();
  sawTerminal = false;
  upstreamError: string | undefined;

  constructor(dialect: Dialect) {
    this.dialect = dialect;
  }

  inspect(message: { event?: string | undefined; data: string }): FrameVerdict {
    return this.dialect === "openai"
      ? this.#inspectOpenAI(message.event, message.data)
      : this.#inspectAnthropic(message.event, message.data);
  }

  #inspectOpenAI(event: string | undefined, data: string): FrameVerdict {
    if (data.trim() === "[DONE]") {
      this.sawTerminal = true;
      return { injectedUsageChunk: false };
    }
    const chunk = parse(data);
    if (!chunk) return { injectedUsageChunk: false };
    if (event === "error" || chunk.error !== undefined) this.upstreamError = errorMessage(chunk.error);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) this.#openAIDelta(record(record(choice)?.delta));
    if (chunk.usage === undefined || chunk.usage === null) return { injectedUsageChunk: false };
    // A bad figure in any chunk makes the whole claim one the meter will not take.
    if (this.claim.type !== "invalid") this.claim = claimOf(readOpenaiChatUsage(chunk.usage));
    return { injectedUsageChunk: choices.length === 0 };
  }

  #openAIDelta(delta: Json | undefined): void {
    if (!delta) return;
    this.content.add(delta.content);
    this.content.add(delta.reasoning_content);
    this.content.add(delta.reasoning);
    this.content.add(delta.refusal);
    if (!Array.isArray(delta.tool_calls)) return;
    for (const call of delta.tool_calls) {
      const fn = record(record(call)?.function);
      if (typeof record(call)?.id === "string") this.content.toolCalls += 1;
      this.content.add(fn?.name);
      this.content.add(fn?.arguments);
    }
  }

  #inspectAnthropic(event: string | undefined, data: string): FrameVerdict {
    const payload = parse(data);
    const type = event ?? (typeof payload?.type === "string" ? payload.type : undefined);
    switch (type) {
      case "content_block_start": {
        const block = record(payload?.content_block);
        if (block?.type === "tool_use") {
          this.content.toolCalls += 1;
          this.content.add(block.name);
        }
        this.content.add(block?.text);
        this.content.add(block?.thinking);
        break;
      }
      case "content_block_delta": {
        const delta = record(payload?.delta);
        this.content.add(delta?.text);
        this.content.add(delta?.partial_json);
        this.content.add(delta?.thinking);
        break;
      }
      case "message_start":
        this.#anthropicUsage(record(payload?.message)?.usage, false);
        break;
      case "message_delta":
        this.#anthropicUsage(payload?.usage, true);
        break;
      case "message_stop":
        this.sawTerminal = true;
        break;
      case "error":
        this.upstreamError = errorMessage(payload?.error);
        break;
    }
    return { injectedUsageChunk: false };
  }

  #anthropicUsage(raw: unknown, final: boolean): void {
    if (this.claim.type === "invalid") return;
    const reading = readAnthropicUsageFields(raw);
    if (reading.type === "absent") return;
    if (reading.type === "invalid") {
      this.claim = reading;
      return;
    }
    const previous = this.claim.type === "read" ? this.claim : undefined;
    this.claim = {
      type: "read",
      usage: mergeAnthropicUsage(previous?.usage ?? emptyUsage, reading.value),
      reasoningTokens: undefined,
      // message_start's output count is a placeholder; message_delta's is the count.
      outputReported:
        (previous?.outputReported ?? false) || (final && reading.value.outputTokens !== undefined),
    };
  }
}
