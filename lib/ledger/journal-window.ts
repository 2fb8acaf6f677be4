import { gatewayMetrics } from "../metrics/gateway-metrics";

/**
 * How many answers, and how much of their price, may go out before their settlements are stored.
 * Waiting for a journal row costs every non-streamed answer a database round trip (on a loaded
 * 2-core host, 1.6 to 1.9 ms at concurrency 1), and under load the journal's inserts and deletes
 * are a database's work of their own; answering first costs nothing but leaves the answers whose
 * settlements are still on their way unbilled if the process is killed in that moment. Within
 * the window a settlement goes straight to the ledger's next batch, with no journal row
 * (balance-lease.ts). This bounds that loss twice: at most `bound` answers, and at most
 * `microunitBound` of their cost, are ever out with their settlements unwritten. Past either, an
 * answer waits for its journal row as every answer once did: an expensive answer (a long
 * generation, for which a round trip is nothing) waits, a cheap quick one does not. Counted on
 * /metrics.
 */
export class JournalWindow {
  readonly bound: number;
  readonly microunitBound: bigint;
  #open = 0;
  #openMicrounits = 0n;
  #widest = 0;

  constructor(bound: number, microunitBound: bigint) {
    this.bound = bound;
    this.microunitBound = microunitBound;
  }

  /**
   * True (and counted until `close` with the same cost) when one more answer costing `cost` may
   * go out before its settlement is stored.
   */
  tryOpen(cost: bigint): boolean {
    if (this.#open >= this.bound || this.#openMicrounits + cost > this.microunitBound) {
      if (this.bound > 0) gatewayMetrics.journalWindowFull.inc();
      return false;
    }
    this.#open += 1;
    this.#openMicrounits += cost;
    if (this.#open > this.#widest) this.#widest = this.#open;
    gatewayMetrics.journalEarlyAnswers.inc();
    return true;
  }

  /** The settlement of an answer let out early is stored (its batch or a journal row committed, or it failed for good). */
  close(cost: bigint): void {
    this.#open -= 1;
    this.#openMicrounits -= cost;
  }

  /** Answers out now whose settlements are not stored: what a kill -9 at this instant leaves unbilled. */
  get open(): number {
    return this.#open;
  }

  /** What those answers cost: the most a kill -9 at this instant leaves unbilled, in microunits. */
  get openMicrounits(): bigint {
    return this.#openMicrounits;
  }

  /** The most that were ever out at once since this process started. */
  get widest(): number {
    return this.#widest;
  }
}
