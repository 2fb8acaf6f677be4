import type { Dialect } from "../dialects/dialect";
import { readAnthropicUsage } from "../dialects/usage/anthropic-messages-usage";
import { readOpenaiChatUsage } from "../dialects/usage/openai-chat-usage";
import { createSseDecoder } from "../sse/sse-decoder";
import { RelayedContent } from "./relayed-content";
import { StreamUsageTap } from "./stream-usage-tap";
import { claimOf, type UsageClaim } from "./usage-claim";

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The usage a complete non-streamed body claims. */
export function claimFromBody(dialect: Dialect, body: unknown): UsageClaim {
  const raw = record(body)?.usage;
  if (dialect === "openai") return claimOf(readOpenaiChatUsage(raw));
  const reading = readAnthropicUsage(raw);
  return reading.type === "read"
    ? { type: "read", usage: reading.value, reasoningTokens: undefined, outputReported: true }
    : reading;
}

/** The generated content of a non-streamed body, as the caller receives it. */
export function contentFromBody(dialect: Dialect, body: unknown): RelayedContent {
  const content = new RelayedContent();
  if (dialect === "openai") {
    for (const choice of list(record(body)?.choices)) {
      const message = record(record(choice)?.message);
      content.add(message?.content);
      content.add(message?.reasoning_content);
      content.add(message?.reasoning);
      content.add(message?.refusal);
      for (const call of list(message?.tool_calls)) {
        const fn = record(record(call)?.function);
        content.toolCalls += 1;
        content.add(fn?.name);
        content.add(fn?.arguments);
      }
    }
    return content;
  }
  for (const block of list(record(body)?.content)) {
    const part = record(block);
    content.add(part?.text);
    content.add(part?.thinking);
    if (part?.type === "tool_use") {
      content.toolCalls += 1;
      content.add(part.name);
      content.add(JSON.stringify(part.input ?? {}));
    }
  }
  return content;
}

/** A body that is not JSON: its text is what the caller got, so it is what is counted. */
export function rawContent(text: string): RelayedContent {
  const content = new RelayedContent();
  content.add(text);
  return content;
}

/** The content type or the first bytes say the body is an event stream. */
export function isEventStream(contentType: string, text: string): boolean {
  if (contentType.includes("text/event-stream")) return true;
  const start = text.trimStart().slice(0, 6);
  return start.startsWith("data:") || start.startsWith("event:");
}

/** A whole event-stream body through the same tap as a relayed stream. */
export function tapWholeStream(dialect: Dialect, text: string): StreamUsageTap {
  const tap = new StreamUsageTap(dialect);
  const decoder = createSseDecoder({ onEvent: (message) => tap.inspect(message) });
  decoder.push(new TextEncoder().encode(text));
  decoder.end();
  return tap;
}
