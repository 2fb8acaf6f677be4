import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../compose-app";
import { type Executor, openDatabase, queryRows } from "../../lib/db/client";
import { readDatabaseId } from "../../lib/db/database-identity";
import { getAccountBalance } from "../../lib/ledger/accounts";
import { VolatileJournal } from "../../lib/ledger/settlement-journal";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { findToken } from "../../lib/tokens/find-token";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream";
import { registerFundedToken } from "../helpers/funded-token";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";
import { nextStart } from "../helpers/next-start";
import { startGatewayProcess } from "../helpers/x402-gateway-process";

/**
 * File journals belong to one database. Before this, every in-memory test gateway journaled into
 * a literal `memory:/journal` folder of the working directory and, at start, billed the journals
 * of the others (whose liveness it cannot see in its own database) into its own books.
 */

async function billedRequests(executor: Executor, accountId: bigint): Promise<number> {
  const rows = await queryRows<{ n: string | number }>(
    executor,
    sql`SELECT COUNT(*) AS n FROM usage_records WHERE account_id = ${accountId}`,
  );
  return Number(rows[0]?.n ?? 0);
}

async function accountOf(gateway: TestGateway, token: string): Promise<bigint> {
  const record = await findToken(gateway.app.database.db, token);
  if (!record) throw new Error("token missing");
  return record.accountId;
}

describe("in-memory gateways side by side", () => {
  it("keep no journal on disk, and neither bills nor deletes the other's settlements", async () => {
    const strayFolder = path.resolve("memory:");
    const hadStrayFolder = existsSync(strayFolder);
    // Settlements wait a while before their batch write, so both have some in flight at once.
    const lease = { lease: true, inMemory: true, env: { BALANCE_LEASE_WRITE_DELAY_MS: "400" } };
    const first = await startTestGateway(lease);
    const firstToken = await first.createFundedToken(1_000_000n);
    const inFlight = Array.from({ length: 8 }, (_, index) =>
      inferenceClient(first, firstToken)
        .chat({ content: `first ${index} [fake:tokens=20]`, maxTokens: 30, stream: index % 2 === 1 })
        .then((response) => response.text()),
    );
    // The second starts (and runs its dead-instance pass) while the first's settlements are unwritten.
    const second = await startTestGateway(lease);
    try {
      const secondToken = await second.createFundedToken(1_000_000n);
      await Promise.all([
        ...inFlight,
        ...Array.from({ length: 8 }, (_, index) =>
          inferenceClient(second, secondToken)
            .chat({ content: `second ${index} [fake:tokens=20]`, maxTokens: 30, stream: index % 2 === 0 })
            .then((response) => response.text()),
        ),
      ]);
      expect(first.app.journal).toBeInstanceOf(VolatileJournal);
      expect(second.app.journal).toBeInstanceOf(VolatileJournal);
      if (!hadStrayFolder) expect(existsSync(strayFolder)).toBe(false);
      for (const [gateway, token] of [
        [first, firstToken],
        [second, secondToken],
      ] as const) {
        const accountId = await accountOf(gateway, token);
        await expect.poll(() => billedRequests(gateway.app.database.db, accountId)).toBe(8);
      }
    } finally {
      // Close used to fail with ENOENT: the other gateway had replayed and deleted this one's journal.
      await second.close();
      await first.close();
    }
  }, 120_000);
});

describe("file databases sharing one BILLING_JOURNAL_DIR", () => {
  let upstream: FakeUpstream;
  let root: string;
  const adminToken = "journal-admin";

  beforeAll(async () => {
    upstream = await startFakeUpstream("openai", "fake-openai");
    root = mkdtempSync(path.join(tmpdir(), "pod-journal-db-"));
  });
  afterAll(async () => {
    await upstream?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const journalDir = () => path.join(root, "journals");
  const envFor = (dataDir: string) => ({
    POD_DATA_DIR: path.join(root, dataDir),
    BILLING_JOURNAL_DIR: journalDir(),
    OPENAI_API_KEY: "sk-test-openai",
    OPENAI_BASE_URL: upstream.baseUrl,
    ADMIN_TOKEN: adminToken,
    REGISTER_RATE_LIMIT_PER_MINUTE: "1000",
    BALANCE_LEASE: "on",
    // Every answer waits for its journal line: what this suite checks is whose journal a start
    // replays, so the answers of a killed process must all be in one.
    BILLING_JOURNAL_WINDOW: "0",
    DEAD_INSTANCE_CHECK_SECONDS: "1",
  });
  const inProcess = (dataDir: string) => nextStart(envFor(dataDir));

  const fundedToken = (url: string) => registerFundedToken(url, adminToken, 1_000_000n);

  /** Opens a data directory (creating and migrating it) to add or drop a trigger that stalls usage writes. */
  async function stallUsageWrites(dataDir: string, stall: boolean): Promise<void> {
    const handle = await openDatabase({ dataDir: path.join(root, dataDir) });
    try {
      await handle.migrate();
      if (stall) {
        await handle.db.execute(
          sql.raw(`CREATE OR REPLACE FUNCTION stall_usage_write() RETURNS trigger AS $$
            BEGIN PERFORM pg_sleep(600); RETURN NEW; END $$ LANGUAGE plpgsql`),
        );
        await handle.db.execute(
          sql`CREATE TRIGGER stall_usage_write BEFORE INSERT ON usage_records FOR EACH ROW EXECUTE FUNCTION stall_usage_write()`,
        );
      } else await handle.db.execute(sql`DROP TRIGGER IF EXISTS stall_usage_write ON usage_records`);
    } finally {
      await handle.close();
    }
  }

  async function books(app: AppContext, token: string) {
    const record = await findToken(app.database.db, token);
    if (!record) throw new Error("token missing");
    return {
      requests: await billedRequests(app.database.db, record.accountId),
      balance: await getAccountBalance(app.database.db, record.accountId),
    };
  }

  it("a gateway on another database never replays a dead process's journal; its own database's next start does", async () => {
    // The victim database has a funded account with the same id the dead process billed to (both
    // are the first account of a fresh database), the account a foreign replay would charge.
    const otherServer = await startGatewayProcess(envFor("other"));
    const otherToken = await fundedToken(otherServer.url);
    await otherServer.stop();
    const other = await inProcess("other");
    const otherBefore = await books(other, otherToken);
    const otherDatabaseId = await readDatabaseId(other.database.db);
    await other.close();

    // A gateway process on its own database serves and is killed before writing its batch: its
    // database holds every usage write (a trigger that sleeps), as a wedged disk would.
    await stallUsageWrites("crashed", true);
    const crashing = await startGatewayProcess(envFor("crashed"));
    const token = await fundedToken(crashing.url);
    for (let index = 0; index < 5; index += 1) {
      const response = await inferenceClient({ baseUrl: crashing.url }, token).chat({
        content: `request ${index} [fake:tokens=30]`,
        maxTokens: 40,
        stream: index === 4,
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    await crashing.kill();
    const left = readdirSync(journalDir());
    expect(left).toHaveLength(1);

    // The other database's gateway starts twice (the dead-instance pass runs at each start).
    for (let start = 0; start < 2; start += 1) {
      const again = await inProcess("other");
      try {
        expect(await books(again, otherToken)).toEqual(otherBefore);
        expect(await verifyLedger(again.database.db)).toEqual([]);
      } finally {
        await again.close();
      }
    }
    expect(readdirSync(journalDir())).toEqual(left);
    expect(left[0]).toMatch(/\.db-[0-9a-f-]{36}\.journal$/);
    expect(left[0]).not.toContain(otherDatabaseId);

    // Its own database's next start bills all five, once, and removes the journal.
    await stallUsageWrites("crashed", false);
    const recovered = await inProcess("crashed");
    try {
      const after = await books(recovered, token);
      expect(after.requests).toBe(5);
      expect(after.balance.held).toBe(0n);
      expect(after.balance.balance).toBeLessThan(1_000_000n);
      expect(await verifyLedger(recovered.database.db)).toEqual([]);
      expect(
        readdirSync(journalDir()).filter((name) => !name.startsWith(recovered.holds.instanceId)),
      ).toEqual([]);
    } finally {
      await recovered.close();
    }
  }, 240_000);
});
