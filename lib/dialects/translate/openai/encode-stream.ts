import type { StreamEvent } from "../ir";
import { newVendorId } from "../new-id";
import { encodeJsonFrame, encodeSseFrame } from "../sse";
import type { StreamEncoder } from "../stream-codec";
import { renderOpenaiError } from "./error-envelope";
import { renderOpenaiFinishReason } from "./map-finish-reason";
import { renderOpenaiUsage } from "./map-usage";

export interface OpenaiStreamEncoderOptions {
  model: string;
  /** The caller asked for stream_options.include_usage: send the final `choices: []` usage chunk. */
  includeUsage: boolean;
}

/**
 * IR → OpenAI chat.completion.chunk SSE, in the order OpenAI itself sends: role chunk,
 * deltas, a finish_reason chunk, the optional usage chunk, then `data: [DONE]`.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
export function createOpenaiStreamEncoder(options: OpenaiStreamEncoderOptions): StreamEncoder {
  const id = newVendorId("chat-completion");
  const created = Math.floor(Date.now() / 1000);
  let started = false;
  // Tool calls that have streamed no argument text yet (see normaliseArguments).
  const toolsWithoutArguments = new Set<number>();

  function chunk(delta: Record<string, unknown>, finishReason: string | null = null): Uint8Array {
    return encodeJsonFrame({
      id,
      object: "chat.completion.chunk",
      created,
      model: options.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
  }

  function encodeEvent(event: StreamEvent): Uint8Array[] {
    switch (event.type) {
      case "text-delta":
        return [chunk({ content: event.text })];
      case "reasoning-delta":
        // Only a Responses caller is shown the model's reasoning.
        return [];
      case "tool-call-start":
        toolsWithoutArguments.add(event.toolIndex);
        return [
          chunk({
            tool_calls: [
              {
                index: event.toolIndex,
                id: event.id,
                type: "function",
                function: { name: event.name, arguments: "" },
              },
            ],
          }),
        ];
      case "tool-call-delta":
        toolsWithoutArguments.delete(event.toolIndex);
        return [
          chunk({ tool_calls: [{ index: event.toolIndex, function: { arguments: event.argumentsDelta } }] }),
        ];
      case "finish": {
        const frames = [...toolsWithoutArguments].map((index) =>
          chunk({ tool_calls: [{ index, function: { arguments: "{}" } }] }),
        );
        frames.push(chunk({}, renderOpenaiFinishReason(event.reason)));
        if (options.includeUsage) {
          frames.push(
            encodeJsonFrame({
              id,
              object: "chat.completion.chunk",
              created,
              model: options.model,
              choices: [],
              usage: renderOpenaiUsage(event.usage),
            }),
          );
        }
        frames.push(encodeSseFrame({ data: "[DONE]" }));
        return frames;
      }
      case "error":
        // No [DONE] after an error: the SDK throws on the error frame and the stream is over.
        return [encodeJsonFrame(renderOpenaiError(event.error))];
    }
  }

  return {
    encode(event: StreamEvent): Uint8Array[] {
      if (started || event.type === "error") return encodeEvent(event);
      started = true;
      return [chunk({ role: "assistant", content: "", refusal: null }), ...encodeEvent(event)];
    },
  };
}
