import { type CallerDialect, type Dialect, errorDialectOf } from "../dialects/dialect";
import { encodeStreamError, type StreamTranslator } from "../dialects/translate";
import { encodeSseFrame } from "../dialects/translate/sse";
import type { ErrorType } from "../errors/gateway-error";
import { type ChunkSource, webStreamOf } from "../http/streamed-response";
import { log } from "../log";
import { createSseDecoder } from "../sse/sse-decoder";
import { outputBound } from "../usage/meter-usage";
import { StreamUsageTap } from "../usage/stream-usage-tap";
import { countLoaded, loadedTokenizer } from "../usage/tokenizer";
import type { RequestOutcome } from "./settle-request";

export interface RelayStreamOptions {
  /** The upstream's bytes: undici's node stream, or a web stream (marketplace agents). */
  upstream: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
  upstreamDialect: Dialect;
  callerDialect: CallerDialect;
  /** Drop the usage-only chunk the gateway requested on the caller's behalf. */
  suppressInjectedUsage: boolean;
  /** Converts upstream frames to the caller's dialect when they differ. */
  translate?: StreamTranslator;
  abortUpstream(): void;
  /** An upstream silent this long mid-stream is given up on (aborted, error in-band, usage so far billed). */
  idleTimeoutMs: number;
  /** A client that takes nothing for this long is cut off (upstream aborted, usage so far billed). */
  writeTimeoutMs: number;
  /**
   * Marketplace streams: the output limit forwarded (times `n`). An agent that streams well past
   * it is cut off with an in-band error; the bill is capped at the limit either way.
   */
  outputLimit?: number;
  /** Runs exactly once, after the last byte is produced and before the response ends. */
  onEnd(tap: StreamUsageTap, outcome: RequestOutcome): Promise<void>;
  /** Runs after each chunk is taken by the client (journal-running-count.ts throttles it). */
  onProgress?(tap: StreamUsageTap): void;
  /** Runs when the upstream's first chunk arrives (the source's measured time to first token). */
  onFirstChunk?(): void;
  /** Sees each upstream chunk as it came (the response cache keeps the answer they add up to). */
  onUpstreamChunk?(chunk: Uint8Array): void;
}

const encoder = new TextEncoder();

class UpstreamIdleError extends Error {
  override readonly name = "UpstreamIdleError";
}

/** A web stream's chunks; a consumer that stops early cancels the stream (the agent job behind it ends). */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (finished) reader.releaseLock();
    else reader.cancel().catch(() => undefined);
  }
}

/**
 * Passes upstream bytes through unchanged while the tap reads usage from the decoded
 * events. When the injected usage chunk must be dropped, events are re-encoded instead
 * (comments such as keep-alives included) and that one chunk is left out.
 */
async function* tapped(
  upstream: AsyncIterable<Uint8Array>,
  tap: StreamUsageTap,
  suppressInjectedUsage: boolean,
  onChunk: ((chunk: Uint8Array) => void) | undefined,
): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  const decoder = createSseDecoder({
    onEvent(message) {
      const verdict = tap.inspect(message);
      if (suppressInjectedUsage && !verdict.injectedUsageChunk)
        out.push(encodeSseFrame({ ...(message.event ? { event: message.event } : {}), data: message.data }));
    },
    onComment(comment) {
      if (suppressInjectedUsage) out.push(encoder.encode(`: ${comment}\n\n`));
    },
  });
  for await (const chunk of upstream) {
    onChunk?.(chunk);
    decoder.push(chunk);
    // Without suppression the original bytes go out as they came.
    if (!suppressInjectedUsage) yield chunk;
    else yield* out.splice(0);
  }
  decoder.end();
  yield* out.splice(0);
}

/** Cross-dialect streams go through the translator's web TransformStream. */
function translated(
  source: AsyncIterable<Uint8Array>,
  translate: StreamTranslator,
): AsyncIterable<Uint8Array> {
  return chunksOf(webStreamOf(source[Symbol.asyncIterator]()).pipeThrough(translate));
}

/**
 * The caller's stream: upstream chunks as they come, with a deadline for the upstream's next
 * chunk and one for the client to take the last, an in-band error when the upstream fails
 * or stops before its end, and the settlement (onEnd) exactly once whatever happens.
 */
export function relayStream(options: RelayStreamOptions): ChunkSource {
  const tap = new StreamUsageTap(options.upstreamDialect);
  const upstream = options.upstream instanceof ReadableStream ? chunksOf(options.upstream) : options.upstream;
  const taps = tapped(upstream, tap, options.suppressInjectedUsage, options.onUpstreamChunk);
  const source = (options.translate ? translated(taps, options.translate) : taps)[Symbol.asyncIterator]();
  // A translated stream ends in the caller's own vocabulary, and only if it has not ended yet.
  const inBandError = (kind: ErrorType, message: string): Uint8Array[] =>
    options.translate
      ? options.translate.encodeError(kind, message)
      : [encodeStreamError(errorDialectOf(options.callerDialect), kind, message)];
  let ended = false;
  let stoppedBy: RequestOutcome | undefined;
  const cutOffListeners: Array<() => void> = [];
  const finish = async (outcome: RequestOutcome) => {
    if (ended) return;
    ended = true;
    try {
      await options.onEnd(tap, outcome);
    } catch (error) {
      log.error("stream settlement failed", { error });
    }
  };
  const stop = (outcome: RequestOutcome) => {
    if (stoppedBy || ended) return;
    stoppedBy = outcome;
    options.abortUpstream();
    finish(outcome).catch(() => undefined);
  };

  // No tokenizer yields more tokens than bytes: below the bound in bytes nothing is counted,
  // and past it the content is counted again only after it grew by a quarter.
  const limit = options.outputLimit === undefined ? undefined : outputBound(options.outputLimit);
  let nextCountAt = limit ?? Number.POSITIVE_INFINITY;
  const pastLimit = (): boolean => {
    if (limit === undefined || tap.content.bytes <= nextCountAt) return false;
    const tokenizer = loadedTokenizer();
    if (!tokenizer) return false;
    nextCountAt = Math.ceil(tap.content.bytes * 1.25);
    return countLoaded(tokenizer, tap.content.text(), limit) > limit;
  };

  async function* relay(): AsyncGenerator<Uint8Array> {
    // Armed while a chunk waits for the client to take it: a client that stopped reading
    // (its socket full) never takes it, and is cut off.
    let writeTimer: NodeJS.Timeout | undefined;
    let first = true;
    try {
      for (;;) {
        let idleTimer: NodeJS.Timeout | undefined;
        const idle = new Promise<never>((_resolve, reject) => {
          idleTimer = setTimeout(() => reject(new UpstreamIdleError()), options.idleTimeoutMs);
        });
        let step: IteratorResult<Uint8Array>;
        try {
          step = await Promise.race([source.next(), idle]);
        } finally {
          clearTimeout(idleTimer);
        }
        if (stoppedBy) return;
        if (step.done) break;
        if (first) {
          first = false;
          options.onFirstChunk?.();
        }
        if (pastLimit()) {
          log.warn("a marketplace stream ran past the output limit it was given: cut off", { limit });
          options.abortUpstream();
          yield* inBandError(
            "upstream_error",
            "the provider exceeded the output limit the gateway forwarded: the response is cut off",
          );
          await finish("upstream_error");
          return;
        }
        writeTimer = setTimeout(() => {
          log.warn("client stopped reading its stream: cut off", { writeTimeoutMs: options.writeTimeoutMs });
          stop("client_stalled");
          for (const listener of cutOffListeners) listener();
        }, options.writeTimeoutMs);
        yield step.value;
        clearTimeout(writeTimer);
        if (stoppedBy) return;
        options.onProgress?.(tap);
      }
      if (!tap.sawTerminal && !tap.upstreamError) {
        yield* inBandError("upstream_error", "upstream stream ended before completion");
        await finish("stream_cut");
      } else {
        await finish(tap.upstreamError ? "upstream_error" : "completed");
      }
    } catch (error) {
      if (stoppedBy || ended) return;
      log.warn("upstream stream failed mid-way", { error });
      const idle = error instanceof UpstreamIdleError;
      // A stalled upstream would otherwise hold the socket and the hold until the sweeper runs.
      if (idle) options.abortUpstream();
      yield* inBandError(
        idle ? "upstream_timeout" : "upstream_error",
        idle
          ? `upstream sent nothing for ${options.idleTimeoutMs} ms: the response is incomplete`
          : "upstream stream failed: the response is incomplete",
      );
      await finish("upstream_error");
    } finally {
      clearTimeout(writeTimer);
      // The consumer stopped early (the client went away): the upstream stops too, and what
      // was streamed so far is billed.
      if (!ended) stop("client_aborted");
      source.return?.().catch(() => undefined);
    }
  }

  const chunks = relay();
  return {
    [Symbol.asyncIterator]: () => chunks,
    cancel: () => stop("client_aborted"),
    onCutOff: (listener) => {
      cutOffListeners.push(listener);
    },
  };
}
