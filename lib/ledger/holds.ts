import { sql } from "drizzle-orm";
import type { Database, Executor } from "../db/client";
import { queryPrepared, queryRows } from "../db/client";
import { newId } from "../ids";

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
  const rows = await queryPrepared<{ available: string | bigint }>(
    executor,
    "place_hold",
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
