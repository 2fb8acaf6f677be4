/**
 * Where a settlement's signed receipt goes when it is signed after the settlement was queued for
 * the ledger (the receipt needs the charge, which the settlement decides). If the settlement's
 * batch has not been written yet, the receipt is stored by the batch's own statement
 * (`settleBatch`), not by a statement of its own. Once the batch took the settlement it is too
 * late, and the receipt is stored on its own (`ReceiptStore`); so it is when the settlement is
 * written by another statement after all (a quarantine, a lease gone), or when the ledger cannot
 * take its batch now (the receipt does not wait for it in memory). Either way it is stored once.
 */
export class ReceiptSlot {
  #state: "idle" | "queued" | "taken" | "closed" = "idle";
  #jws: string | undefined;
  #storeElsewhere: ((jws: string) => void) | undefined;

  /** The settlement is in the ledger's queue: a receipt offered now goes with it. */
  queued(): void {
    if (this.#state === "idle") this.#state = "queued";
  }

  /** The batch's statement reads the receipt (again, when it is retried). */
  take(): string | undefined {
    if (this.#state === "closed") return undefined;
    this.#state = "taken";
    return this.#jws;
  }

  /**
   * True when the receipt will be written with its settlement (`storeElsewhere` is kept in case
   * it is not, after all); false: the caller stores it elsewhere now.
   */
  offer(jws: string, storeElsewhere: (jws: string) => void): boolean {
    if (this.#state !== "queued") return false;
    this.#jws = jws;
    this.#storeElsewhere = storeElsewhere;
    return true;
  }

  /** The settlement is not (or not now) written by a batch that stores its receipt: stored elsewhere. */
  close(): void {
    const jws = this.#jws;
    this.#state = "closed";
    this.#jws = undefined;
    if (jws !== undefined) this.#storeElsewhere?.(jws);
  }
}
