import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAccountBalance } from "../../lib/ledger/accounts";
import { type LeaseSettlement, settleBatch } from "../../lib/ledger/settle-batch";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { fundedSettlementAccounts } from "../helpers/ledger-accounts";
import { openTestLedger } from "../helpers/test-database";

/** A batch written twice (a journal replayed after its batch committed) bills once and says how many it wrote. */
let ledger: Awaited<ReturnType<typeof openTestLedger>>;

beforeAll(async () => {
  ledger = await openTestLedger();
});
afterAll(async () => {
  await ledger?.close();
});

describe("settleBatch written again", () => {
  it("counts what it wrote now, and a second write of the same settlements bills nothing", async () => {
    const db = ledger.handle.db;
    const { accountId, treasuryAccountId, lossAccountId } = await fundedSettlementAccounts(
      db,
      "batch-replay",
      1_000_000n,
    );
    const settlement = (index: number): LeaseSettlement => ({
      requestId: `req_batch_replay_${index}`,
      accountId,
      leaseId: "no-such-lease",
      cost: 1_000n,
      charged: 1_000n,
      treasuryAccountId,
      lossAccountId,
      providerSharePercent: 80n,
      metadata: { request_id: `req_batch_replay_${index}` },
      usageRecord: {
        model: "gpt-4o-mini",
        route: "centralized",
        providerId: "openai",
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        outcome: "completed",
      },
    });
    const first = await settleBatch(db, [settlement(1), settlement(2), settlement(3)]);
    expect(first.applied).toBe(3);
    expect((await getAccountBalance(db, accountId)).balance).toBe(997_000n);
    const again = await settleBatch(db, [settlement(2), settlement(3), settlement(4)]);
    expect(again.applied).toBe(1);
    expect((await getAccountBalance(db, accountId)).balance).toBe(996_000n);
    expect(await verifyLedger(db)).toEqual([]);
  });
});
