import type { EventSourceMessage } from "eventsource-parser";
import { readOpenaiChatUsage } from "../../usage/openai-chat-usage";
import { emptyUsage, type FinishReason, type StreamEvent, type Usage } from "../ir";
import { isRecord, safeParseJson } from "../json-value";
import { newVendorId } from "../new-id";
import { malformedChunkError, type StreamDecoder, truncatedStreamError } from "../stream-codec";
import { parseOpenaiError } from "./error-envelope";
import { parseOpenaiFinishReason } from "./map-finish-reason";
import { type OpenaiChunk, openaiChunkSchema } from "./schemas";

/**
 * OpenAI chat.completion.chunk SSE → IR. The finish is held back until `[DONE]` (or EOF)
 * because the usage chunk arrives *after* the chunk carrying finish_reason.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
export function createOpenaiStreamDecoder(): StreamDecoder {
  let finishReason: FinishReason | undefined;
  let usage: Usage = emptyUsage;
  let reasoningTokens: number | undefined;
  let done = false;
  let sawRefusal = false;
  // Wire `index` of each tool call → IR toolIndex (dense, in start order).
  const toolIndexByWireIndex = new Map<number, number>();

  function finish(): StreamEvent[] {
    done = true;
    return [
      { type: "finish", reason: finishReason ?? "stop", stopSequence: undefined, usage, reasoningTokens },
    ];
  }

  function fail(event: StreamEvent): StreamEvent[] {
    done = true;
    return [event];
  }

  function decodeChunk(chunk: OpenaiChunk): StreamEvent[] {
    const events: StreamEvent[] = [];
    const reading = readOpenaiChatUsage(chunk.usage);
    if (reading.type === "read") {
      usage = reading.value.usage;
      reasoningTokens = reading.value.reasoningTokens;
    }
    // We never request n > 1, so only the first choice exists.
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    const delta = choice.delta;
    const reasoning = delta?.reasoning_content ?? delta?.reasoning;
    if (reasoning) events.push({ type: "reasoning-delta", text: reasoning });
    if (delta?.content) events.push({ type: "text-delta", text: delta.content });
    if (delta?.refusal) {
      sawRefusal = true;
      events.push({ type: "text-delta", text: delta.refusal });
    }
    for (const [position, call] of (delta?.tool_calls ?? []).entries()) {
      const wireIndex = call.index ?? position;
      let toolIndex = toolIndexByWireIndex.get(wireIndex);
      if (toolIndex === undefined) {
        toolIndex = toolIndexByWireIndex.size;
        toolIndexByWireIndex.set(wireIndex, toolIndex);
        // Some OpenAI-compatible servers omit the id; Anthropic clients need one to reply.
        const id = call.id ?? newVendorId("openai-tool-call");
        events.push({ type: "tool-call-start", toolIndex, id, name: call.function?.name ?? "" });
      }
      const argumentsDelta = call.function?.arguments;
      if (argumentsDelta) events.push({ type: "tool-call-delta", toolIndex, argumentsDelta });
    }
    if (choice.finish_reason) {
      finishReason = sawRefusal ? "content-filter" : parseOpenaiFinishReason(choice.finish_reason);
    }
    return events;
  }

  return {
    decode(message: EventSourceMessage): StreamEvent[] {
      if (done) return [];
      if (message.data.trim() === "[DONE]") return finish();
      const json = safeParseJson(message.data);
      if (isRecord(json) && (message.event === "error" || isRecord(json.error))) {
        return fail({ type: "error", error: parseOpenaiError(json, 0) });
      }
      const parsed = openaiChunkSchema.safeParse(json);
      if (!parsed.success) return fail(malformedChunkError());
      return decodeChunk(parsed.data);
    },
    end(): StreamEvent[] {
      if (done) return [];
      // Some OpenAI-compatible servers never send [DONE]; a finish_reason is proof enough.
      return finishReason === undefined ? fail(truncatedStreamError()) : finish();
    },
  };
}
