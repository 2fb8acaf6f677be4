import { createSseDecoder } from "../../sse/sse-decoder";
import { createAnthropicStreamDecoder } from "./anthropic/decode-stream";
import { createAnthropicStreamEncoder } from "./anthropic/encode-stream";
import type { Dialect } from "./ir";
import { createOpenaiStreamDecoder } from "./openai/decode-stream";
import { createOpenaiStreamEncoder } from "./openai/encode-stream";
import { rewritePassthroughMessage } from "./passthrough-stream";
import type { StreamDecoder, StreamEncoder } from "./stream-codec";

export interface StreamTranslatorOptions {
  /** Model id reported to the caller. */
  model: string;
  /** OpenAI-dialect callers only: whether they asked for stream_options.include_usage. */
  includeUsage: boolean;
}

/**
 * Raw upstream SSE bytes of dialect `from` → raw SSE bytes of dialect `to`.
 * Once a finish or an error has been emitted, later upstream bytes are ignored, so a caller
 * never sees content after `[DONE]`/`message_stop` or after an in-band error. If upstream
 * closes early, an in-band error is emitted instead of a silently truncated answer.
 */
export function createStreamTranslator(
  from: Dialect,
  to: Dialect,
  options: StreamTranslatorOptions,
): TransformStream<Uint8Array, Uint8Array> {
  if (from === to) {
    let passthroughOutput: TransformStreamDefaultController<Uint8Array> | undefined;
    const sse = createSseDecoder((message) => {
      const frame = rewritePassthroughMessage(to, message, options);
      if (frame) passthroughOutput?.enqueue(frame);
    });
    return new TransformStream<Uint8Array, Uint8Array>({
      start: (controller) => {
        passthroughOutput = controller;
      },
      transform: (chunk) => sse.push(chunk),
      flush: () => sse.end(),
    });
  }

  const decoder: StreamDecoder =
    from === "openai" ? createOpenaiStreamDecoder() : createAnthropicStreamDecoder();
  const encoder: StreamEncoder =
    to === "openai" ? createOpenaiStreamEncoder(options) : createAnthropicStreamEncoder(options);
  let output: TransformStreamDefaultController<Uint8Array> | undefined;
  let ended = false;

  function emit(events: ReturnType<StreamDecoder["decode"]>): void {
    for (const event of events) {
      if (ended) return;
      for (const frame of encoder.encode(event)) output?.enqueue(frame);
      if (event.type === "finish" || event.type === "error") ended = true;
    }
  }

  const sse = createSseDecoder((message) => {
    if (!ended) emit(decoder.decode(message));
  });
  return new TransformStream<Uint8Array, Uint8Array>({
    start: (controller) => {
      output = controller;
    },
    transform: (chunk) => sse.push(chunk),
    flush: () => {
      sse.end();
      if (!ended) emit(decoder.end());
    },
  });
}
