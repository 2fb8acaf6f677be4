import type { StreamEvent } from "../ir";
import { newVendorId } from "../new-id";
import { encodeJsonFrame } from "../sse";
import type { StreamEncoder } from "../stream-codec";
import { renderAnthropicError } from "./error-envelope";
import { renderAnthropicStopReason } from "./map-stop-reason";
import { renderAnthropicUsage } from "./map-usage";

/** Anthropic frames always name their event; the SDK ignores frames without `event:`. */
function frame(data: { type: string } & Record<string, unknown>): Uint8Array {
  return encodeJsonFrame(data, data.type);
}

/**
 * IR → Anthropic Messages SSE: message_start, one content block at a time (start, deltas,
 * stop), message_delta with stop_reason and the full usage, message_stop.
 * The upstream's usage is unknown when message_start goes out (OpenAI reports it last), so
 * message_start carries the gateway's own count of the prompt it forwarded (`inputTokens`: the
 * o200k tokenizer's; clients such as LangChain read input tokens only here) and zero output;
 * message_delta carries the upstream's totals, which the SDK copies over and billing uses.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */
export function createAnthropicStreamEncoder(options: {
  model: string;
  inputTokens?: number;
}): StreamEncoder {
  const id = newVendorId("message");
  let started = false;
  let nextBlockIndex = 0;
  let openBlock:
    | { index: number; kind: "text" }
    | { index: number; kind: "tool"; toolIndex: number }
    | undefined;
  const blockIndexByTool = new Map<number, number>();

  function closeOpenBlock(): Uint8Array[] {
    if (!openBlock) return [];
    const stop = frame({ type: "content_block_stop", index: openBlock.index });
    openBlock = undefined;
    return [stop];
  }

  function openNewBlock(contentBlock: Record<string, unknown>, toolIndex?: number): Uint8Array[] {
    const frames = closeOpenBlock();
    const index = nextBlockIndex++;
    openBlock = toolIndex === undefined ? { index, kind: "text" } : { index, kind: "tool", toolIndex };
    if (toolIndex !== undefined) blockIndexByTool.set(toolIndex, index);
    frames.push(frame({ type: "content_block_start", index, content_block: contentBlock }));
    return frames;
  }

  function encodeEvent(event: StreamEvent): Uint8Array[] {
    switch (event.type) {
      case "text-delta": {
        const frames = openBlock?.kind === "text" ? [] : openNewBlock({ type: "text", text: "" });
        const index = openBlock?.index ?? 0;
        frames.push(
          frame({ type: "content_block_delta", index, delta: { type: "text_delta", text: event.text } }),
        );
        return frames;
      }
      case "reasoning-delta":
        // A thinking block needs a signature Anthropic clients verify; OpenAI reasoning has none.
        return [];
      case "tool-call-start":
        return openNewBlock({ type: "tool_use", id: event.id, name: event.name, input: {} }, event.toolIndex);
      case "tool-call-delta": {
        // Interleaved deltas for an earlier call still land on that call's block index.
        const index = blockIndexByTool.get(event.toolIndex);
        if (index === undefined) return [];
        return [
          frame({
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: event.argumentsDelta },
          }),
        ];
      }
      case "finish": {
        const stopReason = renderAnthropicStopReason(event.reason);
        return [
          ...closeOpenBlock(),
          frame({
            type: "message_delta",
            delta: {
              stop_reason: stopReason,
              stop_sequence: stopReason === "stop_sequence" ? (event.stopSequence ?? null) : null,
            },
            usage: renderAnthropicUsage(event.usage),
          }),
          frame({ type: "message_stop" }),
        ];
      }
      case "error":
        return [frame(renderAnthropicError(event.error))];
    }
  }

  return {
    encode(event: StreamEvent): Uint8Array[] {
      if (started || event.type === "error") return encodeEvent(event);
      started = true;
      const start = frame({
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model: options.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: options.inputTokens ?? 0,
            output_tokens: 0,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
        },
      });
      return [start, ...encodeEvent(event)];
    },
  };
}
