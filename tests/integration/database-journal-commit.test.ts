import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, queryRows } from "../../lib/db/client";
import { DatabaseJournal, journaledBy } from "../../lib/ledger/database-journal";
import type { LeaseSettlement } from "../../lib/ledger/settle-batch";
import { leftJournals, SettlementJournal } from "../../lib/ledger/settlement-journal";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

/**
 * The shared journal commits its rows without waiting for the WAL flush, for that one
 * statement only: the connection it borrowed from the pool goes back with synchronous_commit
 * as it was, so the ledger's own commits still wait for the disk.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
if (!onPostgres)
  console.warn(
    "Database journal commit tests skipped (synchronous_commit is a Postgres server setting): set TEST_DATABASE_URL to run them (.ci/run does)",
  );

const settlement = (requestId: string): LeaseSettlement => ({
  requestId,
  accountId: 7n,
  leaseId: "lease-journal-commit",
  cost: 1_234n,
  charged: 1_234n,
  treasuryAccountId: 1n,
  lossAccountId: 2n,
  providerSharePercent: 80n,
  metadata: { request_id: requestId },
  usageRecord: {
    model: "gpt-4o-mini",
    route: "centralized",
    providerId: "openai",
    usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: "completed",
  },
});

/**
 * Another session's lock on the journal table, held until `release`: an INSERT waits on it (not on
 * timing: on a fast or a loaded machine the turns a commit takes vary). `db` is that session's pool.
 */
async function holdJournalTable(url: string | undefined) {
  const holder = await openDatabase({ url, maxConnections: 2 });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked: () => void = () => undefined;
  const lockTaken = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const holding = holder.db.transaction(async (tx) => {
    await tx.execute(sql`LOCK TABLE settlement_journal IN SHARE MODE`);
    locked();
    await released;
  });
  await lockTaken;
  return {
    db: holder.db,
    async release() {
      release();
      await holding;
      await holder.close();
    },
  };
}

describe.skipIf(!onPostgres)("the shared settlement journal on Postgres", () => {
  let testDatabase: TestDatabase;
  let handle: DatabaseHandle;
  let journalDir: string;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    const migrating = await openDatabase({ url: testDatabase.url });
    await migrating.migrate();
    await migrating.close();
    // One connection, so the statement after the journal's runs on the very session it used.
    handle = await openDatabase({ url: testDatabase.url, maxConnections: 1 });
    journalDir = mkdtempSync(path.join(tmpdir(), "pod-journal-commit-"));
  });

  afterAll(async () => {
    await handle?.close();
    await testDatabase?.drop();
    if (journalDir) rmSync(journalDir, { recursive: true, force: true });
  });

  it("journals a settlement that another instance can read, and leaves the session's synchronous_commit alone", async () => {
    const [before] = await queryRows<{ synchronous_commit: string }>(handle.db, sql`SHOW synchronous_commit`);
    const journal = new DatabaseJournal(
      handle.db,
      "instance-a",
      new SettlementJournal(journalDir, "instance-a", "database-a"),
    );
    await Promise.all([journal.append(settlement("req_one")), journal.append(settlement("req_two"))]);
    const [after] = await queryRows<{ synchronous_commit: string }>(handle.db, sql`SHOW synchronous_commit`);
    expect(after?.synchronous_commit).toBe(before?.synchronous_commit);
    expect(after?.synchronous_commit).toBe("on");

    const journaled = await journaledBy(handle.db, "instance-a");
    expect(journaled.map((one) => one.requestId).sort()).toEqual(["req_one", "req_two"]);
    expect(journaled.find((one) => one.requestId === "req_one")?.cost).toBe(1_234n);
    journal.close();
  });

  it("commits each settlement before its promise resolves, and settlements that arrive while an INSERT is in flight share the next one", async () => {
    // Each INSERT is a transaction of its own: its rows share one xmin.
    const statements = async (instanceId: string) =>
      (
        await queryRows<{ n: number }>(
          handle.db,
          sql`SELECT COUNT(DISTINCT xmin::text)::int AS n FROM settlement_journal WHERE instance_id = ${instanceId}`,
        )
      )[0]?.n ?? 0;
    const committed = async (requestId: string) =>
      (
        await queryRows<{ n: number }>(
          handle.db,
          sql`SELECT COUNT(*)::int AS n FROM settlement_journal WHERE request_id = ${requestId}`,
        )
      )[0]?.n ?? 0;
    const journal = new DatabaseJournal(
      handle.db,
      "instance-group",
      new SettlementJournal(journalDir, "instance-group", "database-a"),
    );
    // Alone: it goes out this turn, and its row is there when the promise resolves.
    await journal.append(settlement("req_alone"));
    expect(await committed("req_alone")).toBe(1);
    // One INSERT held in flight by another session's lock on the table (not by timing: on a
    // fast or a loaded machine the turns it takes to commit vary), then ten more settlements in
    // turns of their own while it waits.
    const held = await holdJournalTable(testDatabase.url);
    const first = journal.append(settlement("req_group_first"));
    const waitingOnLock = async () =>
      (
        await queryRows<{ n: number }>(
          held.db,
          sql`SELECT COUNT(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'
                AND query LIKE '%INSERT INTO settlement_journal%'`,
        )
      )[0]?.n ?? 0;
    await expect.poll(waitingOnLock, { timeout: 5_000 }).toBe(1);
    let resolvedEarly = false;
    const followers: Promise<void>[] = [];
    for (let index = 0; index < 10; index += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      const follower = journal.append(settlement(`req_group_${index}`));
      follower.then(
        () => {
          resolvedEarly = true;
        },
        () => undefined,
      );
      followers.push(follower);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Nothing is committed while the lock holds, so no caller has been told it is.
    expect(resolvedEarly).toBe(false);
    await held.release();
    await Promise.all([first, ...followers]);
    for (let index = 0; index < 10; index += 1) expect(await committed(`req_group_${index}`)).toBe(1);
    // The alone one, the first, and the ten behind it in one more: never a statement per settlement.
    expect(await statements("instance-group")).toBe(3);
    journal.close();
  });

  it("a database that takes the row and never commits it: the settlement waits for it, until a stop's wait is up and the local file takes it; the row that lands later is the same settlement", async () => {
    // A wedged database never refuses a statement: an answer past the window waits for its row
    // (another replica can bill only what is in the database), but a stop cannot wait for ever.
    const journal = new DatabaseJournal(
      handle.db,
      "instance-wedged",
      new SettlementJournal(journalDir, "instance-wedged", "database-a"),
    );
    const held = await holdJournalTable(testDatabase.url);
    const inFile = () =>
      leftJournals(journalDir, { ownInstanceId: "someone-else", databaseId: "database-a", unnamed: false })
        .find((left) => left.instanceId === "instance-wedged")
        ?.settlements.map((one) => one.requestId) ?? [];
    try {
      let done = false;
      const appended = journal.append(settlement("req_wedged")).then(() => {
        done = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(done).toBe(false);
      expect(inFile()).toEqual([]);
      const stopped = Date.now();
      journal.stopping(300);
      await appended;
      expect(Date.now() - stopped).toBeGreaterThanOrEqual(290);
      expect(inFile()).toEqual(["req_wedged"]);
      // Past the stop's wait, a later settlement goes to the file without trying the database.
      await journal.append(settlement("req_after_stop"));
      expect(inFile()).toEqual(["req_wedged", "req_after_stop"]);
    } finally {
      await held.release();
    }
    // The first INSERT was still waiting on the lock and commits once it goes: both journals hold
    // it, and a replay of either bills it once (the ledger skips a request it has).
    await expect
      .poll(async () => (await journaledBy(handle.db, "instance-wedged")).map((one) => one.requestId), {
        timeout: 5_000,
      })
      .toEqual(["req_wedged"]);
    journal.close();
  });
});
