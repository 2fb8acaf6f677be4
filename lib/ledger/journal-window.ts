import { gatewayMetrics } from "../metrics/gateway-metrics";

/**
 * How many answers may go out before their settlement is stored. Waiting for a journal row costs
 * every non-streamed answer a database round trip (on a loaded 2-core host, 1.6 to 1.9 ms at
 * concurrency 1); answering first costs nothing but leaves the answers whose settlements are
 * still on their way unbilled if the process is killed in that moment. Within the window a
 * settlement goes straight to the ledger's next batch, with no journal row (balance-lease.ts).
 * This bounds that loss: at most `bound` answers are ever out with their settlements unwritten,
 * and past it an answer waits for its journal row as every answer once did. Counted on /metrics.
 */
export class JournalWindow {
  readonly bound: number;
  #open = 0;
  #widest = 0;

  constructor(bound: number) {
    this.bound = bound;
  }

  /** True (and counted until `close`) when one more answer may go out before its settlement is stored. */
  tryOpen(): boolean {
    if (this.#open >= this.bound) {
      if (this.bound > 0) gatewayMetrics.journalWindowFull.inc();
      return false;
    }
    this.#open += 1;
    if (this.#open > this.#widest) this.#widest = this.#open;
    gatewayMetrics.journalEarlyAnswers.inc();
    return true;
  }

  /** The settlement of an answer let out early is stored (its batch or a journal row committed, or it failed for good). */
  close(): void {
    this.#open -= 1;
  }

  /** Answers out now whose settlements are not stored: what a kill -9 at this instant leaves unbilled. */
  get open(): number {
    return this.#open;
  }

  /** The most that were ever out at once since this process started. */
  get widest(): number {
    return this.#widest;
  }
}
