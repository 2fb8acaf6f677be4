import { sql } from "drizzle-orm";
import type { Database, Executor } from "../db/client";
import { queryRows } from "../db/client";
import { newId } from "../ids";
import { type LedgerEntryInput, postTransaction } from "./post-transaction";

export type PlaceHoldResult =
  | { type: "held"; holdId: string; availableAfter: bigint }
  | { type: "insufficient" };

/**
 * Reserves `amount` of an account's available balance in one statement: the
 * conditional update is atomic per row, so concurrent holds can never overdraw it.
 */
export async function placeHold(
  executor: Executor,
  accountId: bigint,
  amount: bigint,
  ttlSeconds: number,
): Promise<PlaceHoldResult> {
  const holdId = newId("hold");
  const rows = await queryRows<{ available: string | bigint }>(
    executor,
    sql`WITH updated AS (
          UPDATE accounts SET held = held + ${amount}
          WHERE id = ${accountId} AND balance - held >= ${amount}
          RETURNING id, balance - held AS available
        ), inserted AS (
          INSERT INTO holds (id, account_id, amount, expires_at)
          SELECT ${holdId}, id, ${amount}, now() + make_interval(secs => ${ttlSeconds}) FROM updated
          RETURNING account_id
        )
        SELECT available FROM updated WHERE EXISTS (SELECT 1 FROM inserted)`,
  );
  const row = rows[0];
  if (!row) return { type: "insufficient" };
  return { type: "held", holdId, availableAfter: BigInt(row.available) };
}

export interface SettleHoldInput {
  holdId: string;
  accountId: bigint;
  /** What the request cost; the charge never exceeds what the hold (or the balance) covers. */
  cost: bigint;
  kind: string;
  idempotencyKey: string;
  metadata?: Record<string, unknown>;
  /** Who receives the charge; must return entries summing to `charge`. */
  distribute: (charge: bigint) => LedgerEntryInput[];
  /** Extra writes that belong in the same transaction (usage records). */
  alsoWrite?: (executor: Executor, charge: bigint) => Promise<void>;
}

export interface SettleHoldResult {
  charged: bigint;
  /** Available balance after the charge: what is not held by other in-flight requests. */
  availableAfter: bigint;
}

/** Releases a hold and posts the actual charge in one database transaction. */
export async function settleHold(database: Database, input: SettleHoldInput): Promise<SettleHoldResult> {
  return database.transaction(async (transaction) => {
    const released = await queryRows<{ amount: string | bigint }>(
      transaction,
      sql`DELETE FROM holds WHERE id = ${input.holdId} RETURNING amount`,
    );
    const heldAmount = released[0] ? BigInt(released[0].amount) : null;
    const accountRows = await queryRows<{ balance: string | bigint; held: string | bigint }>(
      transaction,
      heldAmount === null
        ? sql`SELECT balance, held FROM accounts WHERE id = ${input.accountId} FOR UPDATE`
        : sql`UPDATE accounts SET held = held - ${heldAmount} WHERE id = ${input.accountId} RETURNING balance, held`,
    );
    const account = accountRows[0];
    if (!account) throw new Error(`account ${input.accountId} not found while settling`);
    const available = BigInt(account.balance) - BigInt(account.held);
    // A swept hold (crash, very long stream) can only charge what is still free.
    const ceiling = heldAmount ?? (available > 0n ? available : 0n);
    const charge = input.cost < ceiling ? input.cost : ceiling;
    if (charge > 0n) {
      await postTransaction(transaction, {
        kind: input.kind,
        idempotencyKey: input.idempotencyKey,
        metadata: { ...input.metadata, cost: input.cost.toString(), charged: charge.toString() },
        entries: [{ accountId: input.accountId, amount: -charge }, ...input.distribute(charge)],
      });
    }
    if (input.alsoWrite) await input.alsoWrite(transaction, charge);
    return { charged: charge, availableAfter: available - charge };
  });
}

/** Releases a hold without charging (the request failed before the upstream billed anything). */
export async function releaseHold(database: Database, holdId: string): Promise<void> {
  await database.transaction(async (transaction) => {
    const released = await queryRows<{ account_id: string | bigint; amount: string | bigint }>(
      transaction,
      sql`DELETE FROM holds WHERE id = ${holdId} RETURNING account_id, amount`,
    );
    const row = released[0];
    if (!row) return;
    await transaction.execute(
      sql`UPDATE accounts SET held = held - ${BigInt(row.amount)} WHERE id = ${BigInt(row.account_id)}`,
    );
  });
}

/** Releases holds past their expiry: what a crashed process left behind. Returns how many were released. */
export async function releaseExpiredHolds(database: Database, now: Date = new Date()): Promise<number> {
  return database.transaction(async (transaction) => {
    const released = await queryRows<{ account_id: string | bigint; amount: string | bigint }>(
      transaction,
      sql`DELETE FROM holds WHERE expires_at < ${now.toISOString()}::timestamptz RETURNING account_id, amount`,
    );
    const perAccount = new Map<bigint, bigint>();
    for (const row of released) {
      const accountId = BigInt(row.account_id);
      perAccount.set(accountId, (perAccount.get(accountId) ?? 0n) + BigInt(row.amount));
    }
    for (const [accountId, amount] of perAccount) {
      await transaction.execute(sql`UPDATE accounts SET held = held - ${amount} WHERE id = ${accountId}`);
    }
    return released.length;
  });
}
