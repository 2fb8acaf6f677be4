import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { queryRows } from "../db/client";
import { settlementQuarantine } from "../db/schema";
import { postTransaction } from "./post-transaction";
import type { LeaseSettlement } from "./settle-batch";

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** The settlement as JSON, bigints as decimal strings (what an operator reads in the quarantine). */
function settlementRecord({
  receipt: _inMemoryOnly,
  ...settlement
}: LeaseSettlement): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(settlement, (_key, value: unknown) =>
      typeof value === "bigint" ? value.toString() : value,
    ),
  ) as Record<string, unknown>;
}

/**
 * Books a settlement the database refused to write as it was, in one transaction: the
 * quarantine row with the reason, and the charge as a balanced ledger transaction without a
 * usage record. The account pays what its lease (then its free balance) covers, the provider
 * gets its share of that, and the rest of the cost goes to the loss account, so the operator
 * sees the loss instead of a writer stuck on one row. Idempotent per request id: a replayed
 * journal books it once. Returns how much the lease was drawn down.
 */
export async function quarantineSettlement(
  database: Database,
  settlement: LeaseSettlement,
  reason: string,
): Promise<Map<string, bigint>> {
  return database.transaction(async (transaction) => {
    const [account] = await queryRows<{ balance: string | bigint; held: string | bigint }>(
      transaction,
      sql`SELECT balance, held FROM accounts WHERE id = ${settlement.accountId} FOR UPDATE`,
    );
    // After the account's lock: a second writer of the same settlement (a replay) waits here, then finds it booked.
    const billed = await queryRows<{ found: number }>(
      transaction,
      sql`SELECT 1 AS found FROM usage_records WHERE request_id = ${settlement.requestId}
          UNION ALL SELECT 1 FROM ledger_transactions WHERE idempotency_key = ${`inference:${settlement.requestId}`}`,
    );
    if (billed.length > 0) return new Map();
    const [lease] = await queryRows<{ amount: string | bigint }>(
      transaction,
      sql`SELECT amount FROM holds WHERE id = ${settlement.leaseId} FOR UPDATE`,
    );
    const fromLease = min(settlement.charged, lease ? BigInt(lease.amount) : 0n);
    const free = account ? BigInt(account.balance) - BigInt(account.held) : 0n;
    const fromFree = min(settlement.charged - fromLease, max(free, 0n));
    const paid = fromLease + fromFree;
    const loss = settlement.cost - paid;
    const providerShare =
      settlement.providerAccountId === undefined ? 0n : (paid * settlement.providerSharePercent) / 100n;
    // The lease lets go of what it pays before the balance drops, so held never exceeds balance.
    if (fromLease > 0n) {
      await transaction.execute(
        sql`UPDATE holds SET amount = amount - ${fromLease} WHERE id = ${settlement.leaseId}`,
      );
      await transaction.execute(
        sql`UPDATE accounts SET held = held - ${fromLease} WHERE id = ${settlement.accountId}`,
      );
    }
    await postTransaction(transaction, {
      kind: "inference",
      idempotencyKey: `inference:${settlement.requestId}`,
      metadata: {
        ...settlement.metadata,
        cost: settlement.cost.toString(),
        shortfall: loss.toString(),
        ...(settlement.upstreamExcess
          ? { upstream_excess: settlement.upstreamExcess.amount.toString() }
          : {}),
        quarantined: reason,
      },
      entries: [
        { accountId: settlement.accountId, amount: -paid },
        ...(settlement.providerAccountId === undefined
          ? []
          : [{ accountId: settlement.providerAccountId, amount: providerShare }]),
        {
          accountId: settlement.treasuryAccountId,
          amount: paid - providerShare + loss + (settlement.upstreamExcess?.amount ?? 0n),
        },
        { accountId: settlement.lossAccountId, amount: -loss },
        ...(settlement.upstreamExcess
          ? [{ accountId: settlement.upstreamExcess.accountId, amount: -settlement.upstreamExcess.amount }]
          : []),
      ],
    });
    await transaction
      .insert(settlementQuarantine)
      .values({
        requestId: settlement.requestId,
        accountId: settlement.accountId,
        settlement: settlementRecord(settlement),
        reason,
        chargedMicrounits: paid,
        lossMicrounits: loss,
      })
      .onConflictDoNothing();
    return new Map(fromLease > 0n ? [[settlement.leaseId, fromLease]] : []);
  });
}
