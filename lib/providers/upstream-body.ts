import type { Dispatcher } from "undici";

/** Bytes queued before a body nobody is reading yet pauses the upstream's socket. */
const queueBound = 64 * 1024;

type FlowControl = Pick<Dispatcher.DispatchController, "pause" | "resume" | "abort" | "paused">;

/** What a whole read is allowed, and what to throw when the body goes past it. */
export interface WholeBounds {
  maxBytes: number;
  tooLarge(): Error;
}

/**
 * An upstream answer's body as undici hands it over, chunk by chunk, with no node or web stream
 * in between: a whole answer (the common case) has usually arrived with its headers, so reading it
 * costs no tick; a stream is read as an async iterable with backpressure on the upstream socket.
 * A read that stops early (`return`) aborts the upstream request.
 */
export class UpstreamBody implements AsyncIterable<Uint8Array> {
  readonly #flow: FlowControl;
  #chunks: Buffer[] = [];
  #queued = 0;
  #received = 0;
  #ended = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;
  #whole: WholeBounds | undefined;

  constructor(flow: FlowControl) {
    this.#flow = flow;
  }

  /** Every byte has arrived (or the body failed): a read returns at once. */
  get complete(): boolean {
    return this.#ended || this.#error !== undefined;
  }

  /** From the dispatch handler: the next chunk. */
  push(chunk: Buffer): void {
    this.#received += chunk.length;
    const whole = this.#whole;
    if (whole && this.#received > whole.maxBytes) {
      this.#refuse(whole.tooLarge());
      return;
    }
    this.#chunks.push(chunk);
    this.#queued += chunk.length;
    if (!whole && this.#queued >= queueBound && !this.#flow.paused) this.#flow.pause();
    this.#wakeUp();
  }

  /** From the dispatch handler: the body is complete. */
  end(): void {
    this.#ended = true;
    this.#wakeUp();
  }

  /** From the dispatch handler (or a bound): the body failed; reads throw `error`. */
  fail(error: Error): void {
    this.#error ??= error;
    this.#wakeUp();
  }

  /** The whole body as UTF-8 text; past `bounds.maxBytes` the read fails and the upstream is aborted. */
  async text(bounds?: WholeBounds): Promise<string> {
    if (bounds) {
      this.#whole = bounds;
      if (this.#received > bounds.maxBytes) this.#refuse(bounds.tooLarge());
    }
    this.#resume();
    while (!this.#ended && this.#error === undefined) await this.#waitForMore();
    if (this.#error) throw this.#error;
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#queued = 0;
    return chunks.length === 1
      ? (chunks[0] as Buffer).toString("utf8")
      : Buffer.concat(chunks).toString("utf8");
  }

  /** Stops the upstream: nobody will read the rest. */
  cancel(reason: Error): void {
    if (this.#ended || this.#error) return;
    this.#refuse(reason);
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: async () => {
        for (;;) {
          const chunk = this.#chunks.shift();
          if (chunk) {
            this.#queued -= chunk.length;
            if (this.#queued < queueBound / 2) this.#resume();
            return { done: false, value: chunk };
          }
          if (this.#error) throw this.#error;
          if (this.#ended) return { done: true, value: undefined };
          this.#resume();
          await this.#waitForMore();
        }
      },
      return: async () => {
        this.#chunks = [];
        this.#queued = 0;
        this.cancel(new Error("the upstream's body was not read to its end"));
        return { done: true, value: undefined };
      },
    };
  }

  /** Fails the reads with `error` and aborts the upstream request. */
  #refuse(error: Error): void {
    this.fail(error);
    this.#flow.abort(error);
  }

  #resume(): void {
    if (this.#flow.paused) this.#flow.resume();
  }

  #waitForMore(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
