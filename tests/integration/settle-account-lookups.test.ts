import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DatabaseHandle } from "../../lib/db/client";
import * as accounts from "../../lib/ledger/accounts";
import type { LedgerServices } from "../../lib/ledger/ledger-services";
import type { Candidate } from "../../lib/providers/candidate";
import { leaseSettlementOf, type SettleRequestInput } from "../../lib/proxy/settle-request";
import { openTestLedger } from "../helpers/test-database";

vi.mock("../../lib/ledger/accounts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../lib/ledger/accounts")>();
  return { ...actual, ensureAccount: vi.fn(actual.ensureAccount) };
});

/**
 * The treasury's and the loss account's ids are looked up once per process. A fresh process
 * that settles a burst of requests at once (a thousand streams ending together) must send that
 * lookup once, not once per request: on Postgres a thousand lookups queued behind the pool's ten
 * connections held every stream's end for over a second (bench: 197 to 1,000 stalls in 1,000).
 * Runs on PGlite, and on Postgres too where TEST_DATABASE_URL is set (.ci/run's service pass).
 */
let ledger: Awaited<ReturnType<typeof openTestLedger>>;
let handle: DatabaseHandle;
const ensureAccount = vi.mocked(accounts.ensureAccount);

const candidate: Candidate = {
  route: "centralized",
  providerId: "openai",
  dialect: "openai",
  upstreamModelId: "gpt-4o-mini",
  price: { inputPer1m: 150_000n, outputPer1m: 600_000n, cacheReadPer1m: 0n, cacheWritePer1m: 0n },
  dispatch: () => Promise.reject(new Error("not dispatched in this test")),
};

function settlementInput(index: number): SettleRequestInput {
  return {
    requestId: `req_burst${index}`,
    accountId: 1n,
    hold: { kind: "lease", amount: 1_000n },
    candidate,
    model: "gpt-4o-mini",
    usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: "completed",
  };
}

const app = () => ({ database: handle }) as unknown as { database: DatabaseHandle } & LedgerServices;

beforeAll(async () => {
  ledger = await openTestLedger();
  handle = ledger.handle;
});
afterAll(async () => {
  await ledger?.close();
});

describe("settling a burst on a fresh process", () => {
  it("looks each system account up once, however many settle at once", async () => {
    ensureAccount.mockClear();
    const settled = await Promise.all(
      Array.from({ length: 300 }, (_, index) => leaseSettlementOf(app(), settlementInput(index))),
    );
    const treasury = new Set(settled.map((settlement) => settlement.treasuryAccountId));
    expect(treasury.size).toBe(1);
    // One lookup each for the treasury and the loss account; a lookup per request was 600.
    expect(ensureAccount).toHaveBeenCalledTimes(2);
  });

  it("does not keep a failed lookup: the next request asks again and gets the id", async () => {
    const fresh = await openTestLedger();
    try {
      ensureAccount.mockClear();
      ensureAccount.mockRejectedValueOnce(new Error("connection reset"));
      const freshApp = { database: fresh.handle } as unknown as { database: DatabaseHandle } & LedgerServices;
      await expect(leaseSettlementOf(freshApp, settlementInput(1))).rejects.toThrow("connection reset");
      const again = await leaseSettlementOf(freshApp, settlementInput(2));
      expect(again.treasuryAccountId).toBeGreaterThan(0n);
    } finally {
      await fresh.close();
    }
  });
});
