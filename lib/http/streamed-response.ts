import { PlainHeaders } from "../plain-headers";

/** Chunks produced on demand, with the two ways a consumer can stop them early. */
export interface ChunkSource extends AsyncIterable<Uint8Array> {
  /** The client went away: stop now, even while waiting for the next chunk. */
  cancel(): void;
  /** Called if the source gives up on a client that stopped reading, so the writer can drop it. */
  onCutOff(listener: () => void): void;
}

/**
 * A web stream pulling from an async iterator, one chunk per pull; cancelling it runs
 * `onCancel` first (to stop the producer even while it waits), then ends the iterator.
 */
export function webStreamOf(
  iterator: AsyncIterator<Uint8Array>,
  onCancel?: () => void,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value as Uint8Array<ArrayBuffer>);
    },
    async cancel() {
      onCancel?.();
      await iterator.return?.();
    },
  });
}

/**
 * A streamed Response whose chunks come from a ChunkSource. server.ts writes them straight
 * to node:http; anyone else reading `body` (an x402 receipt transform, Next) gets a web
 * stream over the same source, made on demand.
 */
export class StreamedResponse extends Response {
  readonly source: ChunkSource;
  #web: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  readonly #headers: PlainHeaders;

  constructor(source: ChunkSource, init: { status: number; headers: Record<string, string> }) {
    super(null, { status: init.status });
    this.source = source;
    this.#headers = PlainHeaders.fromWritten(init.headers);
  }

  /** The handler's record as it wrote it (plain-headers.ts: no undici Headers per answer). */
  override get headers(): Headers {
    return this.#headers;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#web ??= webStreamOf(this.source[Symbol.asyncIterator](), () => this.source.cancel());
    return this.#web;
  }
}
