import { sql } from "drizzle-orm";
import { type Executor, queryPrepared } from "../db/client";
import type { usageReceipts } from "../db/schema";
import { log } from "../log";

type ReceiptRow = Omit<typeof usageReceipts.$inferInsert, "createdAt">;

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
        await insertReceipts(this.#database, batch);
      } catch (error) {
        log.warn("receipts could not be stored (their callers have them)", {
          count: batch.length,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}

/**
 * One prepared statement whatever the batch's size, its rows in one JSON parameter: a multi-row
 * VALUES list is a new statement for every row count, parsed and planned each time and sent in
 * two round trips (Parse/Describe, then Bind/Execute); this is planned once per connection and
 * sent in one.
 */
function insertReceipts(database: Executor, batch: readonly ReceiptRow[]): Promise<unknown> {
  const rows = batch.map((row) => ({
    request_id: row.requestId,
    account_id: row.accountId.toString(),
    route: row.route,
    provider_id: row.providerId,
    jws: row.jws,
  }));
  return queryPrepared(
    database,
    "receipts_insert",
    sql`INSERT INTO usage_receipts (request_id, account_id, route, provider_id, jws)
        SELECT r.request_id, r.account_id, r.route, r.provider_id, r.jws
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS r(request_id text, account_id bigint, route text, provider_id text, jws text)
        ON CONFLICT (request_id) DO NOTHING`,
  );
}
