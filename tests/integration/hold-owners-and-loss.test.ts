import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AppContext, createAppContext } from "../../compose-app";
import { loadEnv } from "../../lib/env";
import { ensureAccount, getAccountBalance } from "../../lib/ledger/accounts";
import { postTransaction } from "../../lib/ledger/post-transaction";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { gatewayMetrics } from "../../lib/metrics/gateway-metrics";
import type { Candidate } from "../../lib/providers/candidate";
import { reserveForRequest } from "../../lib/proxy/reserve";
import { settleRequest } from "../../lib/proxy/settle-request";
import { startTestGateway, testAdminToken } from "../helpers/gateway";
import { accountBalance } from "../helpers/ledger-accounts";
import { testSharedPostgres } from "../helpers/services";
import { createTestDatabase } from "../helpers/test-database";

const sharedPostgres = testSharedPostgres("Holds released by the next process on shared Postgres").url;

const price = {
  inputPer1m: 1_000_000n,
  outputPer1m: 4_000_000n,
  cacheReadPer1m: 1_000_000n,
  cacheWritePer1m: 1_000_000n,
};

async function fundedAccount(app: AppContext, ref: string, amount: bigint): Promise<bigint> {
  const accountId = await ensureAccount(app.database.db, "token", ref);
  const source = await ensureAccount(app.database.db, "external", "test-funding");
  await postTransaction(app.database.db, {
    kind: "admin_credit",
    idempotencyKey: `fund:${ref}`,
    entries: [
      { accountId: source, amount: -amount },
      { accountId, amount },
    ],
  });
  return accountId;
}

/** These tests are about hold rows, so leases are off (BALANCE_LEASE=off) and every hold is a row. */
async function hold(app: AppContext, accountId: bigint): Promise<string> {
  const reservation = await reserveForRequest(app, {
    accountId,
    price,
    inputTokens: 100,
    maxOutputTokens: 100,
    choices: 1,
    callerLimit: true,
    balanceShare: 32,
  });
  if (reservation.hold.kind !== "row") throw new Error("expected a hold row");
  return reservation.hold.id;
}

describe("holds of a crashed process", () => {
  it("are released at the next start, not after HOLD_TTL_SECONDS (file-backed PGlite)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pod-holds-"));
    try {
      const env = loadEnv({
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        POD_DATA_DIR: dataDir,
        HOLD_TTL_SECONDS: "900",
        BALANCE_LEASE: "off",
      });
      const crashed = await createAppContext({ env, sweeper: false });
      const accountId = await fundedAccount(crashed, "crash", 10_000n);
      await hold(crashed, accountId);
      expect((await getAccountBalance(crashed.database.db, accountId)).held).toBeGreaterThan(0n);
      // A crash: the database goes away without the instance ever releasing anything.
      await crashed.database.close();
      const next = await createAppContext({ env, sweeper: false });
      try {
        expect(await getAccountBalance(next.database.db, accountId)).toMatchObject({
          held: 0n,
          balance: 10_000n,
        });
        expect(await verifyLedger(next.database.db)).toEqual([]);
      } finally {
        await next.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!sharedPostgres)(
    "are released by the next process on shared Postgres, while a live process keeps its own",
    async () => {
      const database = await createTestDatabase();
      const env = loadEnv({
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        DATABASE_URL: database.url ?? "",
        HOLD_TTL_SECONDS: "900",
        BALANCE_LEASE: "off",
      });
      const live = await createAppContext({ env, sweeper: false });
      const crashed = await createAppContext({ env, sweeper: false });
      let next: AppContext | undefined;
      try {
        const liveAccount = await fundedAccount(live, "live", 10_000n);
        const crashedAccount = await fundedAccount(crashed, "crashed", 10_000n);
        const liveHold = await hold(live, liveAccount);
        await hold(crashed, crashedAccount);
        await crashed.database.close(); // its session (and liveness lock) dies with it
        next = await createAppContext({ env, sweeper: false });
        expect((await getAccountBalance(next.database.db, crashedAccount)).held).toBe(0n);
        expect((await getAccountBalance(next.database.db, liveAccount)).held).toBeGreaterThan(0n);
        await live.holds.release(liveHold);
        expect(await verifyLedger(next.database.db)).toEqual([]);
      } finally {
        await next?.close();
        await live.close();
        await database.drop();
      }
    },
  );
});

describe("usage that exceeds what the account can cover", () => {
  it("charges up to the hold, never past it, and posts the shortfall to the loss account, counted and exposed at /metrics", async () => {
    const gateway = await startTestGateway({ env: { BALANCE_LEASE: "off" } });
    try {
      const app = gateway.app;
      const accountId = await fundedAccount(app, "short", 1_000n);
      const holdId = await hold(app, accountId);
      const candidate = {
        route: "centralized",
        providerId: "openai",
        dialect: "openai",
        upstreamModelId: "m",
        price,
        dispatch: () => Promise.reject(new Error("unused")),
      } satisfies Candidate;
      const lossBefore = gatewayMetrics.lossMicrounits.value();
      // 1,000 input + 1,000 output tokens at these prices cost 5,000; the hold is 500 of a 1,000 balance.
      const settled = await settleRequest(app, {
        requestId: "req_shortfall_test",
        accountId,
        hold: { kind: "row", id: holdId, amount: 500n },
        candidate,
        model: "m",
        usage: { inputTokens: 1_000, outputTokens: 1_000, cacheReadTokens: 0, cacheWriteTokens: 0 },
        outcome: "completed",
      });
      expect(settled).toMatchObject({ charged: 500n, shortfall: 4_500n });
      expect(await getAccountBalance(app.database.db, accountId)).toEqual({
        balance: 500n,
        held: 0n,
        available: 500n,
      });
      expect(await accountBalance(gateway, "external", "inference-loss")).toBe(-4_500n);
      // The counters are bookkeeping after the answer (the next check phase): let it run.
      await new Promise((resolve) => setImmediate(resolve));
      expect(gatewayMetrics.lossMicrounits.value() - lossBefore).toBe(4_500);

      const unauthorized = await fetch(`${gateway.baseUrl}/metrics`);
      expect(unauthorized.status).toBe(401);
      const metrics = await fetch(`${gateway.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${testAdminToken}` },
      });
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get("content-type")).toContain("text/plain");
      const text = await metrics.text();
      expect(text).toContain("# TYPE pod_billing_loss_microunits_total counter");
      expect(text).toMatch(/^pod_billing_loss_account_microunits 4500$/m);
      expect(text).toMatch(/^pod_holds_open 0$/m);
    } finally {
      await gateway.close();
    }
  });
});
