import { log } from "../log";
import { gatewayMetrics } from "../metrics/gateway-metrics";

/** Writes that may be behind their answers at once; past it an answer waits for its own (as under a stalled database). */
const maxPending = 1_000;

/**
 * Stored responses written behind their answers: the answer goes out first, the INSERT right
 * after, in this process. A lookup of an id still being written here waits for that write
 * (`settled`), so a client that names a response the instant it has it always finds it.
 * A failed write is logged and counted; its waiters then find nothing, as if it never was.
 */
export class PendingResponseStores {
  readonly #pending = new Map<string, Promise<void>>();

  /**
   * Writes `write` once the current answer has been handed to the socket (the next turn of the
   * event loop). Resolves at once, or when the write is done if `maxPending` writes are already out.
   */
  behind(id: string, write: () => Promise<void>): Promise<void> {
    const full = this.#pending.size >= maxPending;
    const written: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(write)
      .catch((error: unknown) => {
        gatewayMetrics.storedResponseFailures.inc();
        log.error("storing a response failed: it cannot be continued or read", { error, id });
      })
      .finally(() => {
        if (this.#pending.get(id) === written) this.#pending.delete(id);
      });
    if (full) {
      gatewayMetrics.storedResponseWindowFull.inc();
      return written;
    }
    this.#pending.set(id, written);
    return Promise.resolve();
  }

  /** The write of `id` still under way in this process (it never rejects), or undefined. */
  settled(id: string): Promise<void> | undefined {
    return this.#pending.get(id);
  }

  /** Resolves once every write begun so far is done (before the database closes). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending.values());
  }
}

/** The slice of the services that keeps and finds stored responses. */
export interface ResponseStoreServices {
  pendingResponses: PendingResponseStores;
}
