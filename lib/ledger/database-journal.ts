import { sql } from "drizzle-orm";
import type { Database, Executor } from "../db/client";
import { queryPrepared, queryRows } from "../db/client";
import { log } from "../log";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import { fromJournalPayload, toJournalPayload } from "./journal-payload";
import type { LeaseSettlement } from "./settle-batch";
import { type Journal, lastPerRequest, type SettlementJournal } from "./settlement-journal";

/**
 * The journal on shared storage: each settlement is a `settlement_journal` row (settlements that
 * arrive together share one INSERT), committed before its client is answered, so when this
 * process dies, with its disk or not, a surviving replica reads the rows and bills them before it
 * releases the dead process's leases. Rows go with the statement that puts their settlements in
 * the ledger. Within the journal window a settlement skips the journal and goes straight to the
 * ledger's next batch (balance-lease.ts). A database that cannot take the row right now falls
 * back to the local file journal (replayed when a process starts on the same disk), so no answer
 * past the window goes out unjournaled. One that takes the row and never commits it (wedged) keeps
 * the answers waiting, until the process stops: then the file takes them once `stopping`'s wait
 * is up, since a stop cannot wait on the database for ever and a platform's SIGKILL follows.
 */
export class DatabaseJournal implements Journal {
  readonly #database: Database;
  readonly #instanceId: string;
  readonly #fallback: SettlementJournal;
  /** Settlements waiting for the next INSERT, and the commit their callers wait on. */
  #queued: LeaseSettlement[] = [];
  #queuedCommit: Promise<void> | undefined;
  #settleQueued: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  #inserting = false;
  /** Commits waiting on the database that give up for the file when the stop's wait is up. */
  readonly #waiting = new Set<() => void>();
  #givenUp = false;
  /** Request ids journaled to the file because the database could not take them. */
  readonly #inFile = new Set<string>();
  /** A stream's running count still being inserted: its removal waits for it, or would miss it. */
  readonly #progressing = new Map<string, Promise<void>>();

  constructor(database: Database, instanceId: string, fallback: SettlementJournal) {
    this.#database = database;
    this.#instanceId = instanceId;
    this.#fallback = fallback;
  }

  /**
   * Group commit: one INSERT in flight at a time. Settlements that arrive while it runs join the
   * next one, started as soon as it commits, so a busy process sends one statement per commit
   * rather than one per event-loop turn (each statement costs this process a socket write and
   * the database a wake-up). With nothing in flight the INSERT goes out at the end of this turn:
   * an answer waits for it.
   */
  append(settlement: LeaseSettlement): Promise<void> {
    this.#queued.push(settlement);
    if (this.#inserting) gatewayMetrics.journalGroupWaits.inc();
    if (!this.#queuedCommit) {
      this.#queuedCommit = new Promise<void>((resolve, reject) => {
        this.#settleQueued = { resolve, reject };
      });
      if (!this.#inserting) setImmediate(() => this.#commitQueued());
    }
    return this.#queuedCommit;
  }

  #commitQueued(): void {
    const batch = this.#queued;
    const settle = this.#settleQueued;
    this.#queued = [];
    this.#queuedCommit = undefined;
    this.#settleQueued = undefined;
    this.#inserting = true;
    this.#commit(batch)
      .then(
        () => settle?.resolve(),
        (error: unknown) => settle?.reject(error),
      )
      .finally(() => {
        this.#inserting = false;
        if (this.#queued.length > 0) this.#commitQueued();
      })
      .catch((error: unknown) => log.error("starting the next journal commit failed", { error }));
  }

  /** Durable once this resolves: in the database, or else in the local file journal. */
  async #commit(batch: readonly LeaseSettlement[]): Promise<void> {
    let failure: unknown;
    if (this.#givenUp) failure = new Error("the process is stopping and the database took no row in time");
    else {
      const inserting = this.#insert(batch, true);
      try {
        if (await this.#inTime(inserting)) return;
        failure = new Error("the database committed no journal row within the stop's wait");
        // If it lands after all, its rows are replayed as already billed.
        inserting.catch(() => undefined);
      } catch (error) {
        failure = error;
      }
    }
    log.error("journaling settlements in the database failed; journaling them to the local file", {
      error: failure,
    });
    for (const one of batch) this.#inFile.add(one.requestId);
    await Promise.all(batch.map((one) => this.#fallback.append(one)));
  }

  /** True once the insert committed; false if the stop's wait ran out first; throws its failure. */
  async #inTime(inserting: Promise<void>): Promise<boolean> {
    let giveUp: () => void = () => undefined;
    const givenUp = new Promise<false>((resolve) => {
      giveUp = () => resolve(false);
    });
    this.#waiting.add(giveUp);
    try {
      return await Promise.race([inserting.then(() => true as const), givenUp]);
    } finally {
      this.#waiting.delete(giveUp);
    }
  }

  /**
   * The process is stopping: a commit the database has not made within `waitMs` (from now, for
   * the one in flight too) goes to the local file instead, and so does every one after.
   */
  stopping(waitMs: number): void {
    const timer = setTimeout(() => {
      this.#givenUp = true;
      for (const giveUp of this.#waiting) giveUp();
    }, waitMs);
    timer.unref();
  }

  progress(settlement: LeaseSettlement): void {
    const { requestId } = settlement;
    const inserted = (this.#progressing.get(requestId) ?? Promise.resolve())
      .then(() => this.#insert([settlement], false))
      .catch((error: unknown) => {
        log.warn("journaling a stream's running count failed; journaling it to the local file", { error });
        this.#fallback.progress(settlement);
      })
      .finally(() => {
        if (this.#progressing.get(requestId) === inserted) this.#progressing.delete(requestId);
      });
    this.#progressing.set(requestId, inserted);
  }

  settledDirectly(requestId: string): void {
    this.#forgetRunningCount(requestId);
    this.#fallback.settledDirectly(requestId);
  }

  /** Its running counts are void: deleted once the one still on its way (if any) has landed. */
  #forgetRunningCount(requestId: string): void {
    (this.#progressing.get(requestId) ?? Promise.resolve())
      .then(() =>
        this.#database.execute(
          sql`DELETE FROM settlement_journal
              WHERE request_id = ${requestId} AND instance_id = ${this.#instanceId} AND NOT final`,
        ),
      )
      .catch((error: unknown) =>
        log.warn("clearing a settled stream's running count failed (replay skips it)", { error }),
      );
  }

  /**
   * Their rows went with the statement that wrote them (`settleBatch`, `forgetSettled`). A
   * stream's running count still being inserted then (its settlement went straight to the batch,
   * with no final row to stop it) would land after: it goes once it has.
   */
  written(batch: readonly LeaseSettlement[]): void {
    if (this.#progressing.size > 0)
      for (const settlement of batch)
        if (this.#progressing.has(settlement.requestId)) this.#forgetRunningCount(settlement.requestId);
    const inFile = batch.filter((settlement) => this.#inFile.delete(settlement.requestId));
    if (inFile.length > 0) this.#fallback.written(inFile);
  }

  close(): void {
    this.#fallback.close();
  }

  async #insert(batch: readonly LeaseSettlement[], final: boolean): Promise<void> {
    if (batch.length === 0) return;
    const rows = batch.map((settlement) => ({
      request_id: settlement.requestId,
      settlement: toJournalPayload(settlement),
    }));
    // A running count never replaces a final settlement that got there first. The row commits
    // without waiting for the WAL flush (synchronous_commit off for this statement's transaction
    // only): the row guards against this process dying, and once committed it lives in the
    // database server whatever happens to us. Only a crash of the database server itself in the
    // next ~0.6 s (3 x wal_writer_delay) could drop it, the same trade the file journal makes by
    // not calling fsync; the wait for the flush was 4 to 5 ms per answer on this machine's disk.
    // Prepared: postgres.js sends an unprepared statement with parameters as Parse/Describe,
    // waits for the parameter types, then sends Bind/Execute (two socket writes and two round
    // trips); a prepared one is a single Bind/Execute once each connection has it.
    await queryPrepared(
      this.#database,
      "journal_insert",
      sql`WITH no_flush_wait AS (SELECT set_config('synchronous_commit', 'off', true))
          INSERT INTO settlement_journal (request_id, instance_id, settlement, final)
          SELECT r.request_id, ${this.#instanceId}, r.settlement, ${final}
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(request_id text, settlement jsonb), no_flush_wait
          ON CONFLICT (request_id) DO UPDATE SET settlement = excluded.settlement, final = excluded.final, updated_at = now()
          WHERE NOT settlement_journal.final`,
    );
  }
}

/** What a (dead) instance journaled in the database: its settlements, a stream's last running count. */
export async function journaledBy(executor: Executor, instanceId: string): Promise<LeaseSettlement[]> {
  const rows = await queryRows<{ request_id: string; settlement: string; final: boolean }>(
    executor,
    sql`SELECT request_id, settlement::text AS settlement, final FROM settlement_journal
        WHERE instance_id = ${instanceId}`,
  );
  return lastPerRequest(
    rows.map((row) => ({
      settlement: fromJournalPayload(row.request_id, JSON.parse(row.settlement)),
      final: row.final,
    })),
  );
}

export async function forgetJournaled(executor: Executor, instanceId: string): Promise<void> {
  await executor.execute(sql`DELETE FROM settlement_journal WHERE instance_id = ${instanceId}`);
}

/** Settlements written to the ledger other than by `settleBatch` (which deletes their rows itself). */
export async function forgetSettled(executor: Executor, requestIds: readonly string[]): Promise<void> {
  await executor.execute(
    sql`DELETE FROM settlement_journal
        WHERE request_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(requestIds)}::jsonb))`,
  );
}
