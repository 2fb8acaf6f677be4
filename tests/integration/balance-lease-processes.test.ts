import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, queryRows } from "../../lib/db/client";
import { loadEnv } from "../../lib/env";
import { getAccountBalance } from "../../lib/ledger/accounts";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { findToken } from "../../lib/tokens/find-token";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream";
import { registerFundedToken } from "../helpers/funded-token";
import { inferenceClient } from "../helpers/inference-client";
import { journalFigures } from "../helpers/journal-figures";
import { nextStart } from "../helpers/next-start";
import { testSharedPostgres } from "../helpers/services";
import { installSettlementPoison, poisonRequest } from "../helpers/settlement-poison";
import { startTcpBalancer } from "../helpers/tcp-balancer";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { type GatewayProcess, startGatewayProcess } from "../helpers/x402-gateway-process";

/**
 * Leases across processes: a process killed with settlements still in memory, and two
 * replicas spending one balance. Separate processes need a shared database server: PGlite
 * lives inside one process.
 */
const postgresUrl = testSharedPostgres("Balance leases across processes").url;
const adminToken = "lease-admin-token";

describe.skipIf(!postgresUrl)("balance leases across processes", () => {
  let upstream: FakeUpstream;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const journals: string[] = [];

  beforeAll(async () => {
    [upstream, database] = await Promise.all([
      startFakeUpstream("openai", "fake-openai"),
      createTestDatabase(),
    ]);
    handle = await openDatabase({ url: database.url });
    await handle.migrate(); // once up front, so processes never race on the schema
  }, 60_000);

  afterAll(async () => {
    await handle?.close();
    await upstream?.close();
    await database?.drop();
    for (const directory of journals) rmSync(directory, { recursive: true, force: true });
  });

  /** `file`: the journal on this process's disk, replayed by the next start there; `database`: shared. */
  function gatewayEnv(journalKind: "file" | "database" = "file"): Record<string, string> {
    const journal = mkdtempSync(path.join(tmpdir(), "pod-journal-"));
    journals.push(journal);
    return {
      DATABASE_URL: database.url ?? "",
      OPENAI_API_KEY: "sk-test-openai",
      OPENAI_BASE_URL: upstream.baseUrl,
      ADMIN_TOKEN: adminToken,
      REGISTER_RATE_LIMIT_PER_MINUTE: "1000",
      BALANCE_LEASE: "on",
      BILLING_JOURNAL_DIR: journal,
      BILLING_JOURNAL: journalKind,
      DEAD_INSTANCE_CHECK_SECONDS: "1",
    };
  }

  /** Two replicas on the shared database journal, settlements held back `writeDelayMs` before the ledger. */
  async function twoReplicas(writeDelayMs: number, extra: Record<string, string> = {}) {
    const envs = [gatewayEnv("database"), gatewayEnv("database")].map((env) => ({
      ...env,
      BALANCE_LEASE_WRITE_DELAY_MS: String(writeDelayMs),
      ...extra,
    }));
    const first = await startGatewayProcess(envs[0] ?? {});
    const second = await startGatewayProcess(envs[1] ?? {});
    return { envs, first, second };
  }

  async function fundedToken(
    gateway: GatewayProcess,
    amount: bigint,
  ): Promise<{ token: string; accountId: bigint }> {
    const token = await registerFundedToken(gateway.url, adminToken, amount);
    const record = await findToken(handle.db, token);
    if (!record) throw new Error("token missing");
    return { token, accountId: record.accountId };
  }

  const ask = (gateway: GatewayProcess, token: string, index: number, stream = false) =>
    inferenceClient({ baseUrl: gateway.url }, token).chat({
      maxTokens: 40,
      stream,
      content: `request ${index} [fake:tokens=30]`,
    });

  /**
   * Holds the usage table (and `more`) so processes can serve but cannot write their batches. Released by
   * ending every other connection (the dead process's blocked batch included, as on a lost
   * host): this test's own pool closes first so that only the dead process's are left.
   */
  async function blockUsageWrites(...more: "settlement_journal"[]) {
    const locker = postgres(database.url ?? "", { max: 1, onnotice: () => {} });
    const session = await locker.reserve();
    await session`BEGIN`;
    await session`LOCK TABLE ${session(["usage_records", ...more])} IN SHARE ROW EXCLUSIVE MODE`;
    return {
      async killEveryConnection() {
        await handle.close();
        await session`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid()`;
        handle = await openDatabase({ url: database.url });
        await session`ROLLBACK`;
        session.release();
        await locker.end();
      },
    };
  }

  async function usageOf(accountId: bigint): Promise<{ requests: number; charged: bigint }> {
    const rows = await queryRows<{ requests: string | number; charged: string | null }>(
      handle.db,
      sql`SELECT COUNT(*) AS requests, SUM(cost_microunits)::text AS charged FROM usage_records WHERE account_id = ${accountId}`,
    );
    return { requests: Number(rows[0]?.requests ?? 0), charged: BigInt(rows[0]?.charged ?? "0") };
  }

  /** Six answers at once, half of them streams, all out with their settlements in no journal nor ledger. */
  async function sixOutUnstored(gateway: GatewayProcess, token: string): Promise<void> {
    const statuses = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async (index) => {
        const response = await ask(gateway, token, index, index % 2 === 1);
        await response.text();
        return response.status;
      }),
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    // All six went straight to a batch that waits up to a second: none is stored or journaled.
    expect((await figures(gateway)).unjournaled).toBe(6);
  }

  /** A start on the same disk and database bills the six answers of a funded million once, and the ledger balances. */
  async function nextStartBillsSixOnce(env: Record<string, string>, accountId: bigint): Promise<void> {
    const next = await nextStart(env);
    try {
      const usage = await usageOf(accountId);
      expect(usage.requests).toBe(6);
      expect(await getAccountBalance(handle.db, accountId)).toMatchObject({
        held: 0n,
        balance: 1_000_000n - usage.charged,
      });
      expect(await verifyLedger(handle.db)).toEqual([]);
    } finally {
      await next.close();
    }
  }

  it("with no journal window, a process killed (kill -9) before writing what it served is billed for all of it at the next start", async () => {
    // BILLING_JOURNAL_WINDOW=0: every answer waits for its journal line, the setting that loses nothing.
    const env: Record<string, string> = { ...gatewayEnv(), BILLING_JOURNAL_WINDOW: "0" };
    const crashing = await startGatewayProcess(env);
    const { token, accountId } = await fundedToken(crashing, 1_000_000n);
    const blocked = await blockUsageWrites();
    const costs: bigint[] = [];
    for (let index = 0; index < 6; index += 1) {
      const response = await ask(crashing, token, index, index % 3 === 2);
      expect(response.status).toBe(200);
      await response.text();
      if (response.headers.get("x-pod-cost-microunits"))
        costs.push(BigInt(response.headers.get("x-pod-cost-microunits") ?? "0"));
    }
    const journalFiles = readdirSync(env.BILLING_JOURNAL_DIR ?? "");
    expect(journalFiles).toHaveLength(1);
    const journaled = readFileSync(path.join(env.BILLING_JOURNAL_DIR ?? "", journalFiles[0] ?? ""), "utf8")
      .split("\n")
      .filter((line) => line.startsWith('{"settle"'));
    expect(journaled).toHaveLength(6);

    await crashing.kill();
    await blocked.killEveryConnection();
    expect(await usageOf(accountId)).toEqual({ requests: 0, charged: 0n });
    expect((await getAccountBalance(handle.db, accountId)).held).toBeGreaterThan(0n); // its lease

    const next = await nextStart(env);
    try {
      const usage = await usageOf(accountId);
      expect(usage.requests).toBe(6);
      // The plain responses reported their cost; the streamed ones are in the total too.
      expect(usage.charged).toBeGreaterThan(costs.reduce((total, cost) => total + cost, 0n));
      const balance = await getAccountBalance(handle.db, accountId);
      expect(balance).toMatchObject({ held: 0n, balance: 1_000_000n - usage.charged });
      expect(
        readdirSync(env.BILLING_JOURNAL_DIR ?? "").filter((name) => !name.startsWith(next.holds.instanceId)),
      ).toEqual([]);
      expect(await verifyLedger(handle.db)).toEqual([]);
    } finally {
      await next.close();
    }
    // A second start finds nothing left to bill twice.
    const again = await nextStart(env);
    await again.close();
    expect((await usageOf(accountId)).requests).toBe(6);
  }, 120_000);

  it.each(["file", "database"] as const)(
    "a settlement the database refuses (%s journal): reads and SIGTERM do not hang, a restart bills the rest and quarantines it",
    async (journalKind) => {
      // The six answers go straight to the ledger's next batch (the journal window), which the lock
      // holds up: the stop journals them, so a SIGTERM loses none of them.
      const env = gatewayEnv(journalKind);
      await installSettlementPoison(handle.db);
      const gateway = await startGatewayProcess(env);
      const { token, accountId } = await fundedToken(gateway, 1_000_000n);
      // The writer is stuck behind a lock while the process serves, as on a slow or wedged database.
      const blocked = await blockUsageWrites();
      const ids: string[] = [];
      for (let index = 0; index < 6; index += 1) {
        const response = await ask(gateway, token, index, index % 2 === 1);
        expect(response.status).toBe(200);
        await response.text();
        ids.push(response.headers.get("x-request-id") ?? "");
      }
      await poisonRequest(handle.db, ids[2] ?? "");
      let started = Date.now();
      const read = await fetch(`${gateway.url}/proxy/${token}/balance`);
      expect(read.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      started = Date.now();
      await gateway.stop(); // SIGTERM
      expect(Date.now() - started).toBeLessThan(15_000);

      await blocked.killEveryConnection();
      expect((await usageOf(accountId)).requests).toBe(0);
      expect((await getAccountBalance(handle.db, accountId)).held).toBeGreaterThan(0n); // kept for the replay

      const next = await nextStart(env);
      try {
        const usage = await usageOf(accountId);
        expect(usage.requests).toBe(5);
        const quarantined = await queryRows<{ request_id: string; charged: string }>(
          handle.db,
          sql`SELECT request_id, charged_microunits::text AS charged FROM settlement_quarantine WHERE account_id = ${accountId}`,
        );
        expect(quarantined.map((row) => row.request_id)).toEqual([ids[2]]);
        const balance = await getAccountBalance(handle.db, accountId);
        expect(balance).toMatchObject({
          held: 0n,
          balance: 1_000_000n - usage.charged - BigInt(quarantined[0]?.charged ?? "0"),
        });
        expect(await verifyLedger(handle.db)).toEqual([]);
      } finally {
        await next.close();
      }
    },
    120_000,
  );

  it("a database wedged whole (database journal): SIGTERM journals the answers already out to the local file, exits by itself, and the next start on the same disk bills each once", async () => {
    // Neither the ledger's batch nor the journal's rows can be written: a wedged database takes
    // the statements and never answers. Before, the stop waited, closed the local file, and the
    // rows' fallback came too late: the six answers were never billed.
    const env = { ...gatewayEnv("database"), BALANCE_LEASE_WRITE_DELAY_MS: "1000" };
    const gateway = await startGatewayProcess(env);
    let blocked: Awaited<ReturnType<typeof blockUsageWrites>> | undefined;
    try {
      const { token, accountId } = await fundedToken(gateway, 1_000_000n);
      blocked = await blockUsageWrites("settlement_journal");
      await sixOutUnstored(gateway, token);
      const started = Date.now();
      await gateway.stop(); // SIGTERM, and nothing after it
      expect(Date.now() - started).toBeLessThan(15_000);
      await blocked.killEveryConnection();
      blocked = undefined;
      expect((await usageOf(accountId)).requests).toBe(0);

      await nextStartBillsSixOnce(env, accountId);
    } finally {
      await gateway.kill();
      await blocked?.killEveryConnection();
    }
  }, 120_000);

  it.each([
    ["gone (every connection refused)", "database"],
    ["held up (a lock)", "file"],
  ] as const)(
    "a database %s: SIGTERM journals the answers already out at once (%s journal), so a SIGKILL a second later loses none and the next start on the same disk bills each once",
    async (_how, journalKind) => {
      // The gateway reaches Postgres through a TCP proxy the "gone" case cuts: every connection
      // dropped and every new one refused, as when the database host goes down. The other case
      // holds the usage table, as on a wedged database. Either way the answers' batch is not
      // written, and a platform with a short grace period sends SIGKILL before the stop's wait ends.
      const gone = journalKind === "database";
      const target = new URL(database.url ?? "");
      const proxy = await startTcpBalancer(() => [`tcp://${target.host}`]);
      const base = gatewayEnv(journalKind);
      const env = {
        ...base,
        DATABASE_URL: base.DATABASE_URL?.replace(target.host, new URL(proxy.url).host) ?? "",
        BALANCE_LEASE_WRITE_DELAY_MS: "1000",
      };
      const gateway = await startGatewayProcess(env);
      try {
        const { token, accountId } = await fundedToken(gateway, 1_000_000n);
        const blocked = gone ? undefined : await blockUsageWrites();
        await sixOutUnstored(gateway, token);
        if (gone) await proxy.close();
        const stopping = gateway.stop(); // SIGTERM; the stop then waits up to 5 s for the database
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await gateway.kill();
        await stopping.catch(() => undefined);
        await blocked?.killEveryConnection();
        expect((await usageOf(accountId)).requests).toBe(0);

        await nextStartBillsSixOnce(base, accountId);
      } finally {
        await gateway.kill();
        await proxy.close();
      }
    },
    120_000,
  );

  interface Answer {
    id: string;
    status: number;
    /** What the answer said it cost (x-pod-cost-microunits; 0 for a stream). */
    cost: bigint;
    /** The whole body arrived (a stream cut by the crash did not). */
    complete: boolean;
    /** Bytes of content delivered before the end or the cut. */
    received: number;
    startedAt: number;
    /** The receipt a whole answer carried (`X-Pod-Receipt`). */
    receipt: string | null;
  }

  /** One request, read to its end or to the crash; never throws. */
  async function answer(
    gateway: GatewayProcess,
    token: string,
    index: number,
    stream: boolean,
  ): Promise<Answer> {
    const startedAt = Date.now();
    let id = "";
    let status = 0;
    let cost = 0n;
    let received = 0;
    let receipt: string | null = null;
    try {
      const response = await inferenceClient({ baseUrl: gateway.url }, token).chat({
        maxTokens: 60,
        stream,
        content: `load ${index} [fake:tokens=${stream ? 40 : 20}]${stream ? " [fake:slow=60]" : ""}`,
      });
      id = response.headers.get("x-request-id") ?? "";
      status = response.status;
      cost = BigInt(response.headers.get("x-pod-cost-microunits") ?? "0");
      receipt = response.headers.get("x-pod-receipt");
      const reader = response.body?.getReader();
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        received += chunk.value.byteLength;
      }
      return { id, status, cost, complete: true, received, startedAt, receipt };
    } catch {
      return { id, status, cost, complete: false, received, startedAt, receipt };
    }
  }

  /** Requests to one replica, a few at a time, until `until` resolves. */
  async function load(gateway: GatewayProcess, token: string, until: Promise<void>, answers: Answer[]) {
    let stop = false;
    until.then(
      () => {
        stop = true;
      },
      () => {
        stop = true;
      },
    );
    let index = 0;
    const lanes = Array.from({ length: 4 }, async (_, lane) => {
      while (!stop && index < 400) {
        index += 1;
        answers.push(await answer(gateway, token, index, lane === 0 || index % 3 === 0));
      }
    });
    await Promise.all(lanes);
  }

  async function heldBy(instanceCount: number): Promise<number> {
    const rows = await queryRows<{ count: string | number }>(
      handle.db,
      sql`SELECT COUNT(*) AS count FROM gateway_instances`,
    );
    return Number(rows[0]?.count ?? 0) - instanceCount;
  }

  /**
   * Every answer billed once, except at most `window.bound` of `window.among` (the answers of a
   * replica killed with kill -9): an answer goes out before its settlement is stored, and a crash
   * in that moment leaves it unbilled (BILLING_JOURNAL_WINDOW, crash-recovery.mdx). Unbilled is
   * never overcharged: the balance is the funding less what the ledger billed, nothing held.
   */
  async function billedOnce(
    answers: Answer[],
    accountId: bigint,
    funded: bigint,
    window: { bound: number; among: readonly Answer[] } = { bound: 0, among: [] },
  ) {
    const rows = await queryRows<{ request_id: string; cost: string; outcome: string }>(
      handle.db,
      sql`SELECT request_id, cost_microunits::text AS cost, outcome FROM usage_records WHERE account_id = ${accountId}`,
    );
    const billed = new Map(rows.map((row) => [row.request_id, row]));
    const answered = answers.filter((one) => one.status === 200 && one.complete);
    expect(answered.length).toBeGreaterThan(3);
    const mayBeUnbilled = new Set(window.among.map((one) => one.id));
    const unbilled = answered.filter((one) => !billed.has(one.id));
    for (const one of unbilled)
      expect(mayBeUnbilled.has(one.id), `answered request ${one.id} is billed`).toBe(true);
    expect(unbilled.length).toBeLessThanOrEqual(window.bound);
    // usage_records' primary key is the request id: nothing is billed twice.
    const charged = rows.reduce((total, row) => total + BigInt(row.cost), 0n);
    const balance = await getAccountBalance(handle.db, accountId);
    expect(balance).toEqual({ balance: funded - charged, held: 0n, available: funded - charged });
    const journal = await queryRows<{ count: string | number }>(
      handle.db,
      sql`SELECT COUNT(*) AS count FROM settlement_journal`,
    );
    expect(Number(journal[0]?.count)).toBe(0);
    expect(await verifyLedger(handle.db)).toEqual([]);
    return { billed, answered, unbilled };
  }

  it("kill -9 of one of two replicas under load (own journal disks): every answer billed once but at most the journal window of the dead one's, cut streams billed, its hold back in seconds", async () => {
    // Settlements wait half a second for company, so the crash always finds some unwritten.
    const { envs, first, second } = await twoReplicas(500);
    const { BILLING_JOURNAL_WINDOW: bound } = loadEnv({ ...envs[0], NODE_ENV: "test" });
    const funded = 50_000_000n;
    const { token, accountId } = await fundedToken(first, funded);
    const answers: Answer[] = [];
    const fromDead: Answer[] = [];
    let crash: () => void = () => {};
    const crashed = new Promise<void>((resolve) => {
      crash = resolve;
    });
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const loads = [load(first, token, crashed, fromDead), load(second, token, finished, answers)];
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const crashedAt = Date.now();
    await first?.kill();
    crash();
    // The survivor finds it dead, bills its journal (running counts included), releases its lease.
    const deadline = Date.now() + 15_000;
    while ((await heldBy(1)) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const recoveredInMs = Date.now() - crashedAt;
    expect(await heldBy(1)).toBe(0);
    expect(recoveredInMs).toBeLessThan(10_000);
    finish();
    await Promise.all(loads);
    await second?.stop();
    answers.push(...fromDead);
    const { billed } = await billedOnce(answers, accountId, funded, { bound, among: fromDead });
    // Streams the crash cut after more than a second of content: billed from their running count.
    const cut = answers.filter(
      (one) => one.status === 200 && !one.complete && one.received > 0 && crashedAt - one.startedAt > 1_500,
    );
    expect(cut.length).toBeGreaterThan(0);
    for (const one of cut) {
      expect(billed.get(one.id)?.outcome).toBe("interrupted");
      expect(BigInt(billed.get(one.id)?.cost ?? "0")).toBeGreaterThan(0n);
    }
    // The dead replica comes back on its own disk: nothing is billed twice.
    const count = billed.size;
    const back = await startGatewayProcess(envs[0] ?? {});
    await back.stop();
    expect((await usageOf(accountId)).requests).toBe(count);
  }, 120_000);

  it("kill -9 of the only replica: a new process on another disk bills everything it answered but at most the journal window", async () => {
    // A window of 2 under 4 lanes of load: some answers wait for their rows, at most 2 do not.
    const env = {
      ...gatewayEnv("database"),
      BALANCE_LEASE_WRITE_DELAY_MS: "500",
      BILLING_JOURNAL_WINDOW: "2",
    };
    const only = await startGatewayProcess(env);
    const funded = 20_000_000n;
    const { token, accountId } = await fundedToken(only, funded);
    const answers: Answer[] = [];
    let crash: () => void = () => {};
    const crashed = new Promise<void>((resolve) => {
      crash = resolve;
    });
    const running = load(only, token, crashed, answers);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await only.kill();
    crash();
    await running;
    expect(await usageOf(accountId)).not.toEqual({ requests: answers.length, charged: 0n });
    const next = await startGatewayProcess(gatewayEnv("database")); // its own, empty journal directory
    await next.stop();
    await billedOnce(answers, accountId, funded, { bound: 2, among: answers });
  }, 120_000);

  /** How pg_stat_activity shows the journal's INSERT and the ledger's batch (`settle_batch`). */
  const statementOpenings = {
    journal: "%INSERT INTO settlement_journal %",
    ledger: "WITH input AS (%",
  } as const;

  /**
   * Statements the gateways have in the database (the journal's INSERTs, or the ledger's batches,
   * known by their opening: pg_stat_activity keeps a statement's first kilobyte): running, and of
   * those waiting for a lock. Read outside the locking transaction, whose view of
   * pg_stat_activity is a snapshot.
   */
  async function inserts(
    writer: keyof typeof statementOpenings,
  ): Promise<{ active: number; waiting: number }> {
    const [row] = await queryRows<{ active: number; waiting: number }>(
      handle.db,
      sql`SELECT COUNT(*)::int AS active, (COUNT(*) FILTER (WHERE wait_event_type = 'Lock'))::int AS waiting
          FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
            AND query LIKE ${statementOpenings[writer]}`,
    );
    return { active: row?.active ?? 0, waiting: row?.waiting ?? 0 };
  }

  const figures = (gateway: GatewayProcess) => journalFigures(gateway.url, adminToken);

  /** A funded token on the gateway, and its first answer, once that answer's settlement is stored. */
  async function warmedUp(gateway: GatewayProcess) {
    const funded = 20_000_000n;
    const { token, accountId } = await fundedToken(gateway, funded);
    const warm = await answer(gateway, token, 0, false);
    expect(warm.status).toBe(200);
    await until(async () => (await figures(gateway)).unjournaled === 0);
    return { funded, token, accountId, warm };
  }

  /** Polls `condition` (a state the code or the database shows) until it holds; fails after 15 s. */
  async function until(condition: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`not reached within 15 s: ${condition.toString()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * The journal and the ledger locked as a slow database would hold them: the journal's INSERTs
   * and the ledger's batches wait in the database.
   */
  async function lockDatabase() {
    const locker = postgres(database.url ?? "", { max: 1, onnotice: () => {} });
    const session = await locker.reserve();
    await session`BEGIN`;
    await session`LOCK TABLE settlement_journal, usage_records IN SHARE ROW EXCLUSIVE MODE`;
    return {
      /** The statements still waiting never commit: their connections are ended first (a lost host's). */
      async dropWaitingInserts() {
        await handle.db.execute(
          sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
                AND (query LIKE ${statementOpenings.journal} OR query LIKE ${statementOpenings.ledger})`,
        );
      },
      async release() {
        await session`ROLLBACK`;
        session.release();
        await locker.end();
      },
    };
  }

  /**
   * The journal and the ledger held up, twenty answers at once: `out` go out with their
   * settlements on the way to the ledger, the rest wait for their journal rows. Then kill -9; the
   * dead process's ledger batch and journal INSERT never commit (its connections end, as with a
   * lost host).
   */
  async function twentyThenKill(crashing: GatewayProcess, token: string, out: number) {
    const lock = await lockDatabase();
    const before = await figures(crashing);
    const answers: Answer[] = [];
    const concurrent = Array.from({ length: 20 }, (_, index) =>
      answer(crashing, token, index + 1, false).then((settled) => {
        answers.push(settled);
        return settled;
      }),
    );
    await until(async () => (await figures(crashing)).windowFull - before.windowFull === 20 - out);
    await until(async () => answers.length === out);
    await until(async () => (await inserts("ledger")).waiting === 1);
    const atKill = await figures(crashing);
    await crashing.kill();
    await lock.dropWaitingInserts();
    await lock.release();
    const all = await Promise.all(concurrent);
    return { atKill, all, answered: all.filter((one) => one.status === 200 && one.complete) };
  }

  it("a database held up: at most BILLING_JOURNAL_WINDOW answers go out before their settlements are stored, the rest wait for their journal rows in one group, all are billed once", async () => {
    // Settlements wait a second for company before the ledger (unless the window crowds).
    const { first: crashing, second: survivor } = await twoReplicas(1000, { BILLING_JOURNAL_WINDOW: "4" });
    const { funded, token, accountId, warm } = await warmedUp(crashing);

    // The journal and the ledger are locked: the ledger's batch and the journal's INSERT wait in
    // the database, and the requests that settle behind that INSERT queue for the next group.
    const lock = await lockDatabase();
    const answers: Answer[] = [warm];
    let answeredSince = 0;
    const before = await figures(crashing);
    expect(before.bound).toBe(4);
    const all = Array.from({ length: 12 }, (_, index) =>
      answer(crashing, token, index + 1, false).then((settled) => {
        answeredSince += 1;
        answers.push(settled);
      }),
    );
    // Four (the window) were answered at once and went straight to the ledger, whose batch waits
    // for the lock. The eight past the window wait for their journal rows: one INSERT in the
    // database, the ones behind it queued for the next group, as every answer waited before the window.
    await until(async () => answeredSince === 4);
    await until(async () => (await inserts("ledger")).waiting === 1);
    await until(async () => (await inserts("journal")).waiting === 1);
    await until(async () => (await figures(crashing)).windowFull - before.windowFull === 8);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(answeredSince).toBe(4);
    // Those that came in the INSERT's own turn went with it; every later one queued behind it.
    expect((await figures(crashing)).groupWaits - before.groupWaits).toBeGreaterThan(0);
    expect((await inserts("journal")).active).toBe(1);
    expect((await inserts("ledger")).active).toBe(1);
    const held = await figures(crashing);
    expect(held.unjournaled).toBe(4);
    expect(held.early - before.early).toBe(4);
    expect(held.windowFull - before.windowFull).toBe(8);
    expect(held.widest).toBe(4);
    // A balance read waits for the held-up writes at most its flush bound, and already counts what
    // the four answered requests were charged.
    const started = Date.now();
    const read = await fetch(`${crashing.url}/proxy/${token}/balance`);
    expect(read.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    const { usdc_balance: available } = (await read.json()) as { usdc_balance: number };
    const answeredCost = answers.reduce((total, one) => total + one.cost, 0n);
    expect(answeredCost).toBeGreaterThan(warm.cost);
    expect(BigInt(available)).toBeLessThanOrEqual(funded - answeredCost);
    await lock.release();
    await Promise.all(all);
    expect(answers.filter((one) => one.status === 200 && one.complete)).toHaveLength(13);
    await until(async () => (await figures(crashing)).unjournaled === 0);
    await crashing?.kill();

    const deadline = Date.now() + 15_000;
    while ((await heldBy(1)) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await heldBy(1)).toBe(0);
    await survivor?.stop();
    const { billed } = await billedOnce(answers, accountId, funded);
    expect(billed.size).toBe(13);
  }, 120_000);

  it("kill -9 under concurrent load with the database held up: exactly the answers the counter showed unstored go unbilled, never more than the window, in the caller's favour", async () => {
    const { first: crashing, second: survivor } = await twoReplicas(1000, { BILLING_JOURNAL_WINDOW: "5" });
    const { funded, token, accountId, warm } = await warmedUp(crashing);

    // Twenty at once, more than the window: five answered with their settlements on the way to
    // the ledger, fifteen waiting for their journal rows.
    const { atKill, all, answered } = await twentyThenKill(crashing, token, 5);
    expect(atKill.unjournaled).toBe(5);
    expect(answered).toHaveLength(5);
    for (const one of answered) expect(one.cost).toBeGreaterThan(0n);

    // The survivor finds the dead replica's journal empty (the warm-up reached the ledger) and releases its lease.
    await until(async () => (await heldBy(1)) === 0);
    await survivor.stop();
    const { billed, unbilled } = await billedOnce([warm, ...all], accountId, funded, {
      bound: atKill.bound,
      among: all,
    });
    // Exactly the answers the counter showed out unstored: the loss is counted, not guessed.
    expect(unbilled.map((one) => one.id).sort()).toEqual(answered.map((one) => one.id).sort());
    expect(unbilled).toHaveLength(atKill.unjournaled);
    expect([...billed.keys()]).toEqual([warm.id]);
    // The caller is charged for the warm-up alone: the five unbilled answers cost it nothing, and
    // the fifteen never answered hold nothing.
    expect(await getAccountBalance(handle.db, accountId)).toEqual({
      balance: funded - warm.cost,
      held: 0n,
      available: funded - warm.cost,
    });
  }, 120_000);

  it("kill -9 with the window's money bound the tighter: the answers out unstored never cost more than BILLING_JOURNAL_WINDOW_MICROUNITS, the rest wait for their journal rows and are billed", async () => {
    // What one of these answers costs, learnt from a replica without the bound.
    const survivor = await startGatewayProcess({
      ...gatewayEnv("database"),
      BALANCE_LEASE_WRITE_DELAY_MS: "1000",
    });
    const { warm: sample } = await warmedUp(survivor);
    expect(sample.cost).toBeGreaterThan(0n);
    // Room for three and a half answers' cost, under a count bound that would let all twenty out.
    const microunitBound = sample.cost * 3n + sample.cost / 2n;
    const crashing = await startGatewayProcess({
      ...gatewayEnv("database"),
      BALANCE_LEASE_WRITE_DELAY_MS: "1000",
      BILLING_JOURNAL_WINDOW: "100",
      BILLING_JOURNAL_WINDOW_MICROUNITS: String(microunitBound),
    });
    const { funded, token, accountId, warm } = await warmedUp(crashing);

    // Three fit in the money bound; the other seventeen wait for their journal rows.
    const { atKill, all, answered } = await twentyThenKill(crashing, token, 3);
    expect(atKill.boundMicrounits).toBe(Number(microunitBound));
    expect(atKill.unjournaled).toBe(3);
    expect(atKill.unjournaledMicrounits).toBeLessThanOrEqual(Number(microunitBound));
    expect(answered).toHaveLength(3);

    await until(async () => (await heldBy(1)) === 0);
    await survivor.stop();
    const { unbilled } = await billedOnce([warm, ...all], accountId, funded, { bound: 100, among: all });
    // Exactly the answers the gauges showed, at the money they showed, within the bound.
    expect(unbilled.map((one) => one.id).sort()).toEqual(answered.map((one) => one.id).sort());
    const lost = unbilled.reduce((total, one) => total + one.cost, 0n);
    expect(Number(lost)).toBe(atKill.unjournaledMicrounits);
    expect(lost).toBeLessThanOrEqual(microunitBound);
  }, 120_000);

  it("the file journal's window: with the database held up, answers past the window wait only for their journal lines; after kill -9 the next start on the same disk bills every journaled answer, and exactly the counted ones go unbilled", async () => {
    const env: Record<string, string> = {
      ...gatewayEnv("file"),
      BALANCE_LEASE_WRITE_DELAY_MS: "1000",
      BILLING_JOURNAL_WINDOW: "5",
    };
    const crashing = await startGatewayProcess(env);
    const { funded, token, accountId, warm } = await warmedUp(crashing);

    const lock = await lockDatabase();
    const before = await figures(crashing);
    // Twenty at once: five go out with their settlements on the way to the held-up ledger; the
    // other fifteen wait for their journal lines, which the file takes while the database waits.
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, index) => answer(crashing, token, index + 1, false)),
    );
    for (const one of all) expect(one).toMatchObject({ status: 200, complete: true });
    await until(async () => (await inserts("ledger")).waiting === 1);
    const atKill = await figures(crashing);
    expect(atKill.bound).toBe(5);
    expect(atKill.unjournaled).toBe(5);
    expect(atKill.windowFull - before.windowFull).toBe(15);
    const directory = env.BILLING_JOURNAL_DIR ?? "";
    const journaled = new Set(
      readdirSync(directory).flatMap((file) =>
        [...readFileSync(path.join(directory, file), "utf8").matchAll(/"(req_[0-9a-f]+)"/g)].map(
          (match) => match[1],
        ),
      ),
    );
    await crashing.kill();
    // The dead process's ledger batch never commits (its connection ends, as with a lost host).
    await lock.dropWaitingInserts();
    await lock.release();

    const next = await startGatewayProcess(env); // the same disk: it replays the dead process's journal
    await until(async () => (await heldBy(1)) === 0);
    await next.stop();
    const { billed, unbilled } = await billedOnce([warm, ...all], accountId, funded, {
      bound: atKill.bound,
      among: all,
    });
    // Exactly the answers the counter showed out unstored, and none that had a journal line.
    expect(unbilled).toHaveLength(atKill.unjournaled);
    for (const one of unbilled) expect(journaled.has(one.id)).toBe(false);
    expect(billed.size).toBe(16);
    for (const one of all.filter((each) => billed.has(each.id))) expect(journaled.has(one.id)).toBe(true);
  }, 120_000);

  it("a ledger the database cannot take: answers sent straight to it get journal rows after all, so a kill -9 then loses none of them", async () => {
    const env = {
      ...gatewayEnv("database"),
      BALANCE_LEASE_WRITE_DELAY_MS: "50",
      BILLING_JOURNAL_WINDOW: "8",
    };
    const crashing = await startGatewayProcess(env);
    const { funded, token, accountId, warm } = await warmedUp(crashing);
    // Every ledger batch fails as a database that cannot take it right now does (55P03,
    // lock_not_available: transient, retried), while the journal's table takes rows.
    await handle.db.execute(
      sql.raw(`
      CREATE FUNCTION pod_test_ledger_unavailable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'ledger held' USING ERRCODE = '55P03'; END $$;
      CREATE TRIGGER pod_test_ledger_unavailable BEFORE INSERT ON usage_records
      FOR EACH STATEMENT EXECUTE FUNCTION pod_test_ledger_unavailable();`),
    );
    const answers: Answer[] = [warm];
    try {
      const before = await figures(crashing);
      // One at a time, each within the window: answered at once, sent straight to the ledger.
      for (let index = 1; index <= 5; index += 1) answers.push(await answer(crashing, token, index, false));
      expect(answers.filter((one) => one.status === 200 && one.complete)).toHaveLength(6);
      expect((await figures(crashing)).early - before.early).toBe(5);
      // The batches failed, so the five were journaled instead and their window slots closed.
      await until(async () => (await figures(crashing)).unjournaled === 0);
      const rows = await queryRows<{ request_id: string }>(
        handle.db,
        sql`SELECT request_id FROM settlement_journal`,
      );
      expect(rows.map((row) => row.request_id).sort()).toEqual(
        answers
          .slice(1)
          .map((one) => one.id)
          .sort(),
      );
      expect((await usageOf(accountId)).requests).toBe(1);
      // Their receipts did not wait with them for the ledger: stored on their own, before the crash.
      const held = answers.slice(1);
      const storedReceipts = () =>
        queryRows<{ request_id: string; jws: string }>(
          handle.db,
          sql`SELECT request_id, jws FROM usage_receipts
              WHERE request_id IN (${sql.join(
                held.map((one) => sql`${one.id}`),
                sql`, `,
              )})`,
        );
      await until(async () => (await storedReceipts()).length === held.length);
      expect(new Map((await storedReceipts()).map((row) => [row.request_id, row.jws]))).toEqual(
        new Map(held.map((one) => [one.id, one.receipt])),
      );
      await crashing.kill();
    } finally {
      await handle.db.execute(sql.raw("DROP FUNCTION pod_test_ledger_unavailable() CASCADE"));
    }
    // A process on another disk bills the dead one's journal: nothing answered is lost.
    const next = await startGatewayProcess(gatewayEnv("database"));
    await next.stop();
    const { billed } = await billedOnce(answers, accountId, funded);
    expect(billed.size).toBe(6);
  }, 120_000);

  it("two replicas spending one small balance never spend more than it", async () => {
    const replicas = [await startGatewayProcess(gatewayEnv()), await startGatewayProcess(gatewayEnv())];
    try {
      const funded = 2_000n;
      const { token, accountId } = await fundedToken(replicas[0] as GatewayProcess, funded);
      const served = [0, 0];
      let refused = 0;
      await Promise.all(
        replicas.map(async (replica, side) => {
          for (let round = 0; round < 10; round += 1) {
            const statuses = await Promise.all(
              Array.from({ length: 12 }, async (_, index) => {
                const response = await ask(replica, token, round * 12 + index, index % 2 === 0);
                await response.text();
                return response.status;
              }),
            );
            for (const status of statuses) {
              expect([200, 402]).toContain(status);
              if (status === 200) served[side] = (served[side] ?? 0) + 1;
              else refused += 1;
            }
          }
        }),
      );
      expect(served[0]).toBeGreaterThan(0);
      expect(served[1]).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
      await Promise.all(replicas.map((replica) => replica.stop())); // a clean stop writes all and returns the leases
      const usage = await usageOf(accountId);
      expect(usage.requests).toBe((served[0] ?? 0) + (served[1] ?? 0));
      expect(usage.charged).toBeLessThanOrEqual(funded);
      const balance = await getAccountBalance(handle.db, accountId);
      expect(balance).toEqual({
        balance: funded - usage.charged,
        held: 0n,
        available: funded - usage.charged,
      });
      const losses = await queryRows<{ count: string | number }>(
        handle.db,
        sql`SELECT COUNT(*) AS count FROM ledger_transactions WHERE kind = 'inference' AND (metadata->>'shortfall')::bigint > 0`,
      );
      expect(Number(losses[0]?.count)).toBe(0);
      expect(await verifyLedger(handle.db)).toEqual([]);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
    }
  }, 120_000);
});
