import type { ErrorType } from "../../errors/gateway-error";
import { createSseDecoder } from "../../sse/sse-decoder";
import { createAnthropicStreamDecoder } from "./anthropic/decode-stream";
import { createAnthropicStreamEncoder } from "./anthropic/encode-stream";
import type { CallerDialect, Dialect } from "./ir";
import { createOpenaiStreamDecoder } from "./openai/decode-stream";
import { createOpenaiStreamEncoder } from "./openai/encode-stream";
import { rewritePassthroughMessage } from "./passthrough-stream";
import { createResponsesStreamEncoder } from "./responses/encode-stream";
import type { StreamDecoder, StreamEncoder } from "./stream-codec";
import { responseAsEvents } from "./stream-codec";
import { unwrapStructuredStream } from "./structured-output";
import { encodeStreamError } from "./translate-error";
import { parseUpstreamResponse, responsesContextOf, structuredCarrierOf } from "./translate-response";

export interface StreamTranslatorOptions {
  /** Model id reported to the caller. */
  model: string;
  /** OpenAI-dialect callers only: whether they asked for stream_options.include_usage. */
  includeUsage: boolean;
  /** The caller's request body: the Responses API echoes it (instructions, tools, …). */
  callerRequest?: Record<string, unknown>;
  /**
   * Anthropic callers only: the prompt's tokens as the gateway counted them, for message_start
   * (an OpenAI-format upstream reports its count only at the end; clients read it at the start).
   */
  inputTokens?: number;
}

/**
 * A transform from upstream SSE bytes to the caller's, which can also end the caller's
 * stream with an error the relay detected itself (a stall, a cut connection).
 */
export interface StreamTranslator extends ReadableWritablePair<Uint8Array, Uint8Array> {
  /** The in-band error frames in the caller's dialect, or none if the caller's stream already ended. */
  encodeError(kind: ErrorType, message: string): Uint8Array[];
}

function encoderFor(to: CallerDialect, options: StreamTranslatorOptions) {
  switch (to) {
    case "openai":
      return withPlainErrors(createOpenaiStreamEncoder(options), to);
    case "anthropic":
      return withPlainErrors(createAnthropicStreamEncoder(options), to);
    case "responses":
      return createResponsesStreamEncoder(responsesContextOf(options.callerRequest));
  }
}

function withPlainErrors(encoder: StreamEncoder, to: Dialect) {
  return {
    ...encoder,
    encodeFailure: (kind: ErrorType, message: string) => [encodeStreamError(to, kind, message)],
  };
}

function passthroughTranslator(to: Dialect, options: StreamTranslatorOptions): StreamTranslator {
  let output: TransformStreamDefaultController<Uint8Array> | undefined;
  const sse = createSseDecoder((message) => {
    const frame = rewritePassthroughMessage(to, message, options);
    if (frame) output?.enqueue(frame);
  });
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    start: (controller) => {
      output = controller;
    },
    transform: (chunk) => sse.push(chunk),
    flush: () => sse.end(),
  });
  return {
    readable: transform.readable,
    writable: transform.writable,
    encodeError: (kind, message) => [encodeStreamError(to, kind, message)],
  };
}

/**
 * Raw upstream SSE bytes of dialect `from` → raw SSE bytes of dialect `to`.
 * Once a finish or an error has been emitted, later upstream bytes are ignored, so a caller
 * never sees content after `[DONE]`/`message_stop`/`response.completed` or after an in-band
 * error. If upstream closes early, an in-band error is emitted instead of a silently
 * truncated answer.
 */
export function createStreamTranslator(
  from: Dialect,
  to: CallerDialect,
  options: StreamTranslatorOptions,
): StreamTranslator {
  if (from === to) return passthroughTranslator(to, options);

  const upstreamDecoder: StreamDecoder =
    from === "openai" ? createOpenaiStreamDecoder() : createAnthropicStreamDecoder();
  const carrier = structuredCarrierOf(from, to, options.callerRequest);
  const decoder = carrier ? unwrapStructuredStream(upstreamDecoder, carrier) : upstreamDecoder;
  const encoder = encoderFor(to, options);
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
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    start: (controller) => {
      output = controller;
    },
    transform: (chunk) => sse.push(chunk),
    flush: () => {
      sse.end();
      if (!ended) emit(decoder.end());
    },
  });
  return {
    readable: transform.readable,
    writable: transform.writable,
    encodeError(type, message) {
      if (ended) return [];
      ended = true;
      return encoder.encodeFailure(type, message);
    },
  };
}

/**
 * A whole response of dialect `from` as the stream a caller of dialect `to` reads: every frame,
 * from the opening event to the closing one (a cached answer replayed to a caller that asked to
 * stream). The prompt's count in Anthropic's message_start is the response's own.
 * @throws GatewayError upstream_error when the body is not a valid response.
 */
export function wholeResponseAsStream(
  from: Dialect,
  to: CallerDialect,
  body: Record<string, unknown>,
  options: Omit<StreamTranslatorOptions, "inputTokens">,
): Uint8Array[] {
  const response = parseUpstreamResponse(from, body, structuredCarrierOf(from, to, options.callerRequest));
  const encoder = encoderFor(to, { ...options, inputTokens: response.usage.inputTokens });
  return responseAsEvents(response).flatMap((event) => encoder.encode(event));
}
