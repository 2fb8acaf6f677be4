import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, queryRows } from "../../lib/db/client";
import { DatabaseJournal, journaledBy } from "../../lib/ledger/database-journal";
import type { LeaseSettlement } from "../../lib/ledger/settle-batch";
import { SettlementJournal } from "../../lib/ledger/settlement-journal";
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

  it("gathers settlements that arrive one at a time into one INSERT when told to wait, and commits each before its promise resolves", async () => {
    // Each INSERT is a transaction of its own: its rows share one xmin.
    const statements = async (instanceId: string) =>
      (
        await queryRows<{ n: number }>(
          handle.db,
          sql`SELECT COUNT(DISTINCT xmin::text)::int AS n FROM settlement_journal WHERE instance_id = ${instanceId}`,
        )
      )[0]?.n ?? 0;
    // Ten settlements 5 ms apart, each in an event-loop turn of its own (one answer at a time).
    const trickle = async (journal: DatabaseJournal, prefix: string) => {
      const appended: Promise<void>[] = [];
      for (let index = 0; index < 10; index += 1) {
        const requestId = `${prefix}_${index}`;
        appended.push(
          journal.append(settlement(requestId)).then(async () => {
            const [row] = await queryRows<{ n: number }>(
              handle.db,
              sql`SELECT COUNT(*)::int AS n FROM settlement_journal WHERE request_id = ${requestId}`,
            );
            expect(row?.n).toBe(1);
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await Promise.all(appended);
    };
    const fallback = (id: string) => new SettlementJournal(journalDir, id, "database-a");
    const gathering = new DatabaseJournal(handle.db, "instance-gather", fallback("instance-gather"), 200);
    const immediate = new DatabaseJournal(handle.db, "instance-immediate", fallback("instance-immediate"), 0);
    await trickle(gathering, "req_gathered");
    await trickle(immediate, "req_immediate");
    // The ten went out within 200 ms of the first: one statement. Without gathering each
    // settlement's turn sends its own (a statement in flight makes the next ones share).
    expect(await statements("instance-gather")).toBe(1);
    expect(await statements("instance-immediate")).toBeGreaterThanOrEqual(5);
    gathering.close();
    immediate.close();
  });

  it("never holds back a settlement someone waits for: an answer past the window, or a flush, cuts the gathering pause short", async () => {
    const fallback = new SettlementJournal(journalDir, "instance-awaited", "database-a");
    // A pause far longer than the test: only cutting it short can commit in time.
    const journal = new DatabaseJournal(handle.db, "instance-awaited", fallback, 60_000);
    const started = performance.now();
    const early = journal.append(settlement("req_early_in_window"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([early, journal.append(settlement("req_answer_waits"), true)]);
    expect(performance.now() - started).toBeLessThan(5_000);
    const journaled = await journaledBy(handle.db, "instance-awaited");
    expect(journaled.map((one) => one.requestId).sort()).toEqual(["req_answer_waits", "req_early_in_window"]);
    // A reader that waits for everything (a balance read's flush) cuts the pause short too.
    const hurried = performance.now();
    const gathered = journal.append(settlement("req_before_a_read"));
    journal.hurry();
    await gathered;
    expect(performance.now() - hurried).toBeLessThan(5_000);
    // Alone, too: an awaited settlement on an idle journal goes out this turn.
    const alone = performance.now();
    await journal.append(settlement("req_awaited_alone"), true);
    expect(performance.now() - alone).toBeLessThan(5_000);
    journal.close();
  });
});
