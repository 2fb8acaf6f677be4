import type { EventSourceMessage } from "eventsource-parser";
import type { Dialect } from "./ir";
import { isRecord, safeParseJson } from "./json-value";
import { encodeSseFrame } from "./sse";

/**
 * Same-dialect streams skip the IR so unknown fields and newer event types survive
 * (style guide 2.3). Only two edits are made: the reported model, and OpenAI's usage
 * chunk, which we always request upstream for billing but the caller may not want.
 */
export function rewritePassthroughMessage(
  dialect: Dialect,
  message: EventSourceMessage,
  options: { model: string; includeUsage: boolean },
): Uint8Array | undefined {
  const json = safeParseJson(message.data);
  const frame = (data: string) =>
    encodeSseFrame(message.event === undefined ? { data } : { event: message.event, data });
  if (!isRecord(json)) return frame(message.data);
  if (dialect === "anthropic") {
    if (json.type === "message_start" && isRecord(json.message)) {
      return frame(JSON.stringify({ ...json, message: { ...json.message, model: options.model } }));
    }
    return frame(message.data);
  }
  if (isRecord(json.error)) return frame(message.data);
  const { usage, ...rest } = json;
  const isUsageOnlyChunk = Array.isArray(json.choices) && json.choices.length === 0;
  if (!options.includeUsage && isUsageOnlyChunk) return undefined;
  const chunk = options.includeUsage && usage !== undefined ? { ...rest, usage } : rest;
  return frame(JSON.stringify({ ...chunk, model: options.model }));
}
