import { type CallerDialect, type Dialect, errorDialectOf } from "../dialects/dialect";
import { encodeStreamError, type StreamTranslator } from "../dialects/translate";
import { encodeSseFrame } from "../dialects/translate/sse";
import { log } from "../log";
import { createSseDecoder } from "../sse/sse-decoder";
import { StreamUsageTap } from "../usage/stream-usage-tap";
import type { RequestOutcome } from "./settle-request";

export interface RelayStreamOptions {
  upstream: ReadableStream<Uint8Array>;
  upstreamDialect: Dialect;
  callerDialect: CallerDialect;
  /** Drop the usage-only chunk the gateway requested on the caller's behalf. */
  suppressInjectedUsage: boolean;
  /** Converts upstream frames to the caller's dialect when they differ. */
  translate?: StreamTranslator;
  abortUpstream(): void;
  /** An upstream silent this long mid-stream is given up on (aborted, error in-band, usage so far billed). */
  idleTimeoutMs: number;
  /** A client that pulls nothing for this long is cut off (upstream aborted, usage so far billed). */
  writeTimeoutMs: number;
  /** Runs exactly once, after the last byte is queued and before the response ends. */
  onEnd(tap: StreamUsageTap, outcome: RequestOutcome): Promise<void>;
}

/**
 * Passes upstream bytes through unchanged while the tap reads usage from the decoded
 * events. When the injected usage chunk must be dropped, events are re-encoded instead
 * (comments such as keep-alives included) and that one chunk is left out.
 */
function tapTransform(
  tap: StreamUsageTap,
  suppressInjectedUsage: boolean,
): TransformStream<Uint8Array, Uint8Array> {
  let out: TransformStreamDefaultController<Uint8Array> | undefined;
  const decoder = createSseDecoder({
    onEvent(message) {
      const verdict = tap.inspect(message);
      if (suppressInjectedUsage && !verdict.injectedUsageChunk)
        out?.enqueue(
          encodeSseFrame({ ...(message.event ? { event: message.event } : {}), data: message.data }),
        );
    },
    onComment(comment) {
      if (suppressInjectedUsage) out?.enqueue(encoder.encode(`: ${comment}\n\n`));
    },
  });
  return new TransformStream({
    transform(chunk, controller) {
      out = controller;
      // Without suppression the original bytes go out as they came, before any parsing.
      if (!suppressInjectedUsage) controller.enqueue(chunk);
      decoder.push(chunk);
    },
    flush(controller) {
      out = controller;
      decoder.end();
    },
  });
}

const encoder = new TextEncoder();

class UpstreamIdleError extends Error {
  override readonly name = "UpstreamIdleError";
}

export function relayStream(options: RelayStreamOptions): ReadableStream<Uint8Array> {
  const tap = new StreamUsageTap(options.upstreamDialect);
  let source = options.upstream.pipeThrough(tapTransform(tap, options.suppressInjectedUsage));
  if (options.translate) source = source.pipeThrough(options.translate);
  const reader = source.getReader();
  // A translated stream ends in the caller's own vocabulary, and only if it has not ended yet.
  const inBandError = (type: string, message: string): Uint8Array[] =>
    options.translate
      ? options.translate.encodeError(type, message)
      : [encodeStreamError(errorDialectOf(options.callerDialect), type, message)];
  let ended = false;
  const finish = async (outcome: RequestOutcome) => {
    if (ended) return;
    ended = true;
    try {
      await options.onEnd(tap, outcome);
    } catch (error) {
      log.error("stream settlement failed", { error });
    }
  };

  // Armed after each chunk handed to the client, disarmed when it asks for the next: a
  // client that stopped reading (its socket full) never asks, and is cut off.
  let writeTimer: NodeJS.Timeout | undefined;
  const armWriteTimer = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    writeTimer = setTimeout(() => {
      if (ended) return;
      log.warn("client stopped reading its stream: cut off", { writeTimeoutMs: options.writeTimeoutMs });
      options.abortUpstream();
      reader.cancel().catch(() => undefined);
      controller.error(new Error("client stopped reading"));
      finish("client_stalled").catch(() => undefined);
    }, options.writeTimeoutMs);
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      clearTimeout(writeTimer);
      let idleTimer: NodeJS.Timeout | undefined;
      try {
        const idle = new Promise<never>((_resolve, reject) => {
          idleTimer = setTimeout(() => reject(new UpstreamIdleError()), options.idleTimeoutMs);
        });
        const { done, value } = await Promise.race([reader.read(), idle]);
        clearTimeout(idleTimer);
        if (!done) {
          controller.enqueue(value);
          armWriteTimer(controller);
          return;
        }
        if (!tap.sawTerminal && !tap.upstreamError) {
          for (const frame of inBandError("upstream_error", "upstream stream ended before completion"))
            controller.enqueue(frame);
          await finish("stream_cut");
        } else {
          await finish(tap.upstreamError ? "upstream_error" : "completed");
        }
        controller.close();
      } catch (error) {
        clearTimeout(idleTimer);
        if (ended) return;
        log.warn("upstream stream failed mid-way", { error });
        const idle = error instanceof UpstreamIdleError;
        if (idle) {
          // A stalled upstream would otherwise hold the socket and the hold until the sweeper runs.
          options.abortUpstream();
          reader.cancel().catch(() => undefined);
        }
        const frames = inBandError(
          idle ? "upstream_timeout" : "upstream_error",
          idle
            ? `upstream sent nothing for ${options.idleTimeoutMs} ms: the response is incomplete`
            : "upstream stream failed: the response is incomplete",
        );
        for (const frame of frames) controller.enqueue(frame);
        await finish("upstream_error");
        controller.close();
      }
    },
    async cancel() {
      clearTimeout(writeTimer);
      options.abortUpstream();
      await reader.cancel().catch(() => undefined);
      await finish("client_aborted");
    },
  });
}
