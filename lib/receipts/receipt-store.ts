import type { Executor } from "../db/client";
import { usageReceipts } from "../db/schema";
import { log } from "../log";

type ReceiptRow = typeof usageReceipts.$inferInsert;

/** The most rows one insert carries; more wait for the next. */
const maxBatch = 500;

/**
 * Receipts wait here a few milliseconds and are written many to one statement, off the request's
 * path: the caller already holds its receipt (the header, the stream's last event), so a write
 * that fails loses only the stored copy, and is logged. Idempotent per request id.
 */
export class ReceiptStore {
  readonly #database: Executor;
  readonly #delayMs: number;
  #pending: ReceiptRow[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(database: Executor, delayMs = 20) {
    this.#database = database;
    this.#delayMs = delayMs;
  }

  add(row: ReceiptRow): void {
    this.#pending.push(row);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#delayMs);
  }

  /** Writes everything added so far; resolves when it is in the database (or its failure logged). */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const rows = this.#pending;
    this.#pending = [];
    this.#writing = this.#writing.then(() => this.#write(rows));
    return this.#writing;
  }

  async #write(rows: ReceiptRow[]): Promise<void> {
    for (let start = 0; start < rows.length; start += maxBatch) {
      const batch = rows.slice(start, start + maxBatch);
      try {
        await this.#database.insert(usageReceipts).values(batch).onConflictDoNothing();
      } catch (error) {
        log.warn("receipts could not be stored (their callers have them)", {
          count: batch.length,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}
