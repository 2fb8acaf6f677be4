import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, queryRows } from "../../lib/db/client";
import { ensureAccount, getAccountBalance } from "../../lib/ledger/accounts";
import { ReceiptSlot } from "../../lib/ledger/receipt-slot";
import type { LeaseSettlement } from "../../lib/ledger/settle-batch";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { writeSettlements } from "../../lib/ledger/write-settlements";
import { fundedSettlementAccounts } from "../helpers/ledger-accounts";
import { openTestLedger } from "../helpers/test-database";

/**
 * The hold is the promise: a lease settlement pays at most what its hold covered when it
 * settled (`charged`), on every path. The one-at-a-time path for a settlement its lease no
 * longer covers charges the free balance; if the balance has grown since the batch was refused
 * (a top-up in between), it must still stop at `charged` and post the rest of the cost to the
 * loss account, never bill the whole cost.
 */
let ledger: Awaited<ReturnType<typeof openTestLedger>>;
let handle: DatabaseHandle;

beforeAll(async () => {
  ledger = await openTestLedger();
  handle = ledger.handle;
});
afterAll(async () => {
  await ledger?.close();
});

/**
 * The database refuses `requestId`'s usage record as a balance check would (23514) in the batch
 * and in its retry alone, as when the lease no longer covers it, then takes it.
 */
async function refuseBatchWrites(requestId: string): Promise<void> {
  const db = handle.db;
  // A sequence is not rolled back with the refused statement, so the third write passes.
  await db.execute(sql`CREATE SEQUENCE IF NOT EXISTS refuse_once_seq`);
  await db.execute(
    sql.raw(`CREATE OR REPLACE FUNCTION refuse_once() RETURNS trigger AS $$
      BEGIN
        IF NEW.request_id = '${requestId}' AND nextval('refuse_once_seq') <= 2 THEN
          RAISE EXCEPTION 'balance check' USING ERRCODE = '23514';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`),
  );
  await db.execute(sql`DROP TRIGGER IF EXISTS refuse_once ON usage_records`);
  await db.execute(
    sql`CREATE TRIGGER refuse_once BEFORE INSERT ON usage_records FOR EACH ROW EXECUTE FUNCTION refuse_once()`,
  );
}

describe("a lease settlement its lease no longer covers", () => {
  it("charges what its hold covered, not its whole cost, even when the balance could pay more", async () => {
    const db = handle.db;
    const funded = 5_000_000n;
    const { accountId, treasuryAccountId, lossAccountId } = await fundedSettlementAccounts(
      db,
      "lease-gone-victim",
      funded,
    );
    const providerAccountId = await ensureAccount(db, "provider", "lease-gone-host");
    // Its receipt was signed before the batch, so the batch would have stored it; written by
    // another statement instead, it is handed back to be stored on its own, once.
    const receipt = new ReceiptSlot();
    receipt.queued();
    const storedAlone: string[] = [];
    expect(receipt.offer("header.payload.signature", (jws) => storedAlone.push(jws))).toBe(true);
    // What an upstream's usage priced at (900k), against a hold that covered 300k of it: the
    // lease charged 300k and left 600k as a shortfall. Its lease is gone (released after a crash).
    const settlement: LeaseSettlement = {
      requestId: "req_lease_gone",
      accountId,
      leaseId: "lease-released-under-it",
      cost: 900_000n,
      charged: 300_000n,
      treasuryAccountId,
      lossAccountId,
      providerAccountId,
      providerSharePercent: 80n,
      metadata: { request_id: "req_lease_gone" },
      usageRecord: {
        model: "gpt-4o-mini",
        route: "marketplace",
        providerId: "lease-gone-host",
        usage: { inputTokens: 10, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 },
        outcome: "completed",
      },
      receipt,
    };
    await refuseBatchWrites(settlement.requestId);
    const result = await writeSettlements(db, [settlement], () => {});
    expect(result).toEqual({ left: [], quarantined: 0 });

    expect((await getAccountBalance(db, accountId)).balance).toBe(funded - 300_000n);
    expect((await getAccountBalance(db, lossAccountId)).balance).toBe(-600_000n);
    // The host is credited its share of what the caller paid, not of the cost.
    expect((await getAccountBalance(db, providerAccountId)).balance).toBe(240_000n);
    const [usage] = await queryRows<{ cost: string }>(
      db,
      sql`SELECT cost_microunits::text AS cost FROM usage_records WHERE request_id = ${settlement.requestId}`,
    );
    expect(usage?.cost).toBe("300000");
    expect(storedAlone).toEqual(["header.payload.signature"]);
    expect(await verifyLedger(db)).toEqual([]);
    // Written once: a replay of the same journal line bills nothing more.
    await writeSettlements(db, [settlement], () => {});
    expect((await getAccountBalance(db, accountId)).balance).toBe(funded - 300_000n);
  });
});
