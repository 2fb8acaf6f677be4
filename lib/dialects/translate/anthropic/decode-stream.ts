import type { EventSourceMessage } from "eventsource-parser";
import { mergeAnthropicUsage, readAnthropicUsageFields } from "../../usage/anthropic-messages-usage";
import { valueOr } from "../../usage/usage-reading";
import { emptyUsage, type FinishReason, type StreamEvent, type Usage } from "../ir";
import { isRecord, safeParseJson } from "../json-value";
import { malformedChunkError, type StreamDecoder, truncatedStreamError } from "../stream-codec";
import { parseAnthropicError } from "./error-envelope";
import { parseAnthropicStopReason } from "./map-stop-reason";
import { type AnthropicStreamEvent, anthropicStreamEventSchema } from "./schemas";

const knownEventTypes = new Set<unknown>(
  anthropicStreamEventSchema.options.map((option) => option.shape.type.value),
);

/**
 * Anthropic Messages SSE → IR. Usage is assembled from message_start (input and cache
 * counts) and the cumulative message_delta; thinking and server-tool blocks are skipped.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export function createAnthropicStreamDecoder(): StreamDecoder {
  let usage: Usage = emptyUsage;
  let finishReason: FinishReason | undefined;
  let stopSequence: string | undefined;
  let done = false;
  // Content block index → IR toolIndex, for tool_use blocks only.
  const toolIndexByBlock = new Map<number, number>();

  function finish(): StreamEvent[] {
    done = true;
    return [{ type: "finish", reason: finishReason ?? "stop", stopSequence, usage }];
  }

  function fail(event: StreamEvent): StreamEvent[] {
    done = true;
    return [event];
  }

  function decodeEvent(event: AnthropicStreamEvent): StreamEvent[] {
    switch (event.type) {
      case "message_start":
        usage = mergeAnthropicUsage(usage, valueOr(readAnthropicUsageFields(event.message.usage), {}));
        return [];
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "text" && block.text) return [{ type: "text-delta", text: block.text }];
        if (block.type !== "tool_use") return [];
        const toolIndex = toolIndexByBlock.size;
        toolIndexByBlock.set(event.index, toolIndex);
        const events: StreamEvent[] = [
          { type: "tool-call-start", toolIndex, id: block.id ?? "", name: block.name ?? "" },
        ];
        // The start block normally carries `input: {}` and the JSON follows as deltas.
        if (isRecord(block.input) && Object.keys(block.input).length > 0) {
          events.push({ type: "tool-call-delta", toolIndex, argumentsDelta: JSON.stringify(block.input) });
        }
        return events;
      }
      case "content_block_delta": {
        const { delta } = event;
        if (delta.type === "text_delta" && delta.text) return [{ type: "text-delta", text: delta.text }];
        const toolIndex = toolIndexByBlock.get(event.index);
        if (delta.type === "input_json_delta" && delta.partial_json && toolIndex !== undefined) {
          return [{ type: "tool-call-delta", toolIndex, argumentsDelta: delta.partial_json }];
        }
        return [];
      }
      case "message_delta":
        finishReason = parseAnthropicStopReason(event.delta.stop_reason);
        stopSequence = event.delta.stop_sequence ?? undefined;
        usage = mergeAnthropicUsage(usage, valueOr(readAnthropicUsageFields(event.usage), {}));
        return [];
      case "message_stop":
        return finish();
      case "error":
        return fail({ type: "error", error: parseAnthropicError(event, 0) });
      case "content_block_stop":
      case "ping":
        return [];
    }
  }

  return {
    decode(message: EventSourceMessage): StreamEvent[] {
      if (done || message.event === "ping") return [];
      const json = safeParseJson(message.data);
      if (message.event === "error") return fail({ type: "error", error: parseAnthropicError(json, 0) });
      // Event types newer than this code are skipped, as the SDKs do.
      if (isRecord(json) && !knownEventTypes.has(json.type)) return [];
      const parsed = anthropicStreamEventSchema.safeParse(json);
      if (!parsed.success) return fail(malformedChunkError());
      return decodeEvent(parsed.data);
    },
    end(): StreamEvent[] {
      if (done) return [];
      // A message_delta with a stop reason means the content was complete.
      return finishReason === undefined ? fail(truncatedStreamError()) : finish();
    },
  };
}
