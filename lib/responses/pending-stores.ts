import { log } from "../log";
import { gatewayMetrics } from "../metrics/gateway-metrics";

/** Writes that may be behind their answers at once; past it an answer waits for its own (as under a stalled database). */
const maxPending = 1_000;

/** What to write for one answer: the response's id and the INSERT. */
export interface PendingStore {
  id: string;
  write: () => Promise<void>;
}

/**
 * Stored responses written behind their answers: the answer goes out first, the INSERT right
 * after, in this process. A lookup of an id still being written here waits for that write
 * (`settled`), so a client that names a response the instant it has it always finds it.
 * A failed write is logged and counted; its waiters then find nothing, as if it never was.
 */
export class PendingResponseStores {
  readonly #pending = new Map<string, Promise<void>>();
  /** Every write not yet done, its id known or not yet (for the bound and for `idle`). */
  readonly #inFlight = new Set<Promise<void>>();

  /**
   * Reads the answer (`prepare`: finding its id and body costs a parse) and writes it on the next
   * turn of the event loop, once the answer has been handed to the socket. That turn comes before
   * this process reads any further request, so a follow-up always finds the write pending or done.
   * Resolves at once, or when the write is done if `maxPending` writes are already out.
   */
  behind(prepare: () => PendingStore | undefined): Promise<void> {
    const full = this.#inFlight.size >= maxPending;
    const done: Promise<void> = new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#write(prepare, !full).then(resolve, resolve);
      });
    }).finally(() => {
      this.#inFlight.delete(done);
    });
    this.#inFlight.add(done);
    if (!full) return Promise.resolve();
    gatewayMetrics.storedResponseWindowFull.inc();
    return done;
  }

  #write(prepare: () => PendingStore | undefined, visible: boolean): Promise<void> {
    let store: PendingStore | undefined;
    try {
      store = prepare();
    } catch (error) {
      this.#failed(error, undefined);
      return Promise.resolve();
    }
    if (!store) return Promise.resolve();
    const { id } = store;
    const written: Promise<void> = store
      .write()
      .catch((error: unknown) => this.#failed(error, id))
      .finally(() => {
        if (this.#pending.get(id) === written) this.#pending.delete(id);
      });
    if (visible) this.#pending.set(id, written);
    return written;
  }

  #failed(error: unknown, id: string | undefined): void {
    gatewayMetrics.storedResponseFailures.inc();
    log.error("storing a response failed: it cannot be continued or read", { error, id });
  }

  /** The write of `id` still under way in this process (it never rejects), or undefined. */
  settled(id: string): Promise<void> | undefined {
    return this.#pending.get(id);
  }

  /** Resolves once every write begun so far is done (before the database closes). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }
}

/** The slice of the services that keeps and finds stored responses. */
export interface ResponseStoreServices {
  pendingResponses: PendingResponseStores;
}
