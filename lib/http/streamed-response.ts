/** Chunks produced on demand, with the two ways a consumer can stop them early. */
export interface ChunkSource extends AsyncIterable<Uint8Array> {
  /** The client went away: stop now, even while waiting for the next chunk. */
  cancel(): void;
  /** Called if the source gives up on a client that stopped reading, so the writer can drop it. */
  onCutOff(listener: () => void): void;
}

/**
 * A streamed Response whose chunks come from a ChunkSource. server.ts writes them straight
 * to node:http; anyone else reading `body` (an x402 receipt transform, Next) gets a web
 * stream over the same source, made on demand.
 */
export class StreamedResponse extends Response {
  readonly source: ChunkSource;
  #web: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;

  constructor(source: ChunkSource, init: { status: number; headers: Record<string, string> }) {
    super(null, init);
    this.source = source;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    if (this.#web) return this.#web;
    const iterator = this.source[Symbol.asyncIterator]();
    this.#web = new ReadableStream<Uint8Array<ArrayBuffer>>({
      pull: async (controller) => {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value as Uint8Array<ArrayBuffer>);
      },
      cancel: async () => {
        this.source.cancel();
        await iterator.return?.();
      },
    });
    return this.#web;
  }
}
