import { sql } from "drizzle-orm";
import type { Database, Executor } from "../db/client";
import { queryPrepared, queryRows } from "../db/client";
import { newId } from "../ids";
import { owesNothing } from "./receivables";

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

export interface BoundedHoldInput {
  accountId: bigint;
  /** The full worst case: held when the balance allows. */
  max: bigint;
  /** The least worth holding (the request is refused below it). */
  min: bigint;
  /**
   * At most 1/share of the free balance is taken above `min` when the worst case is not held
   * whole, so concurrent requests leave room for each other instead of being refused.
   */
  share: bigint;
  /** The caller set its own limit: hold `max` whole when the free balance covers it. */
  whole: boolean;
  ttlSeconds: number;
  /** The gateway instance that serves the request (see hold-keeper.ts). */
  owner: string;
}

export type BoundedHoldResult =
  | { type: "held"; holdId: string; amount: bigint; availableAfter: bigint }
  /** `owes`: a refund or dispute left a receivable open, so nothing may be spent. */
  | { type: "insufficient"; available: bigint; owes?: boolean };

/**
 * Holds `max` whole when `whole` and it fits, else LEAST(max, GREATEST(min, free / share), free),
 * in one statement (the rule of `boundedHold` in balance-lease.ts). The row is locked
 * before the amount is computed, so the amount is sized from the latest balance, and the
 * conditional update still guards against any overdraw.
 */
export async function placeBoundedHold(
  executor: Executor,
  input: BoundedHoldInput,
): Promise<BoundedHoldResult> {
  // On Postgres the update can skip a row that a concurrent statement changed after this one's
  // lock (it reads as modified by this very command): it did nothing, and the free balance it
  // reports still covers the request. Trying again is then right; a truthful refusal is not retried.
  for (let attempt = 1; ; attempt += 1) {
    const result = await placeBoundedHoldOnce(executor, input);
    if (result.type === "held" || result.owes || result.available < input.min || attempt >= 5) return result;
  }
}

/**
 * What a statement that sizes a hold from the account's row returns: what was free, the
 * amount held (null when nothing could be), what stays available, and whether the account owes.
 */
export interface HoldSizingRow {
  free: string | bigint;
  amount: string | bigint | null;
  available: string | bigint | null;
  owes: boolean;
}

async function placeBoundedHoldOnce(executor: Executor, input: BoundedHoldInput): Promise<BoundedHoldResult> {
  const holdId = newId("hold");
  const rows = await queryRows<HoldSizingRow>(
    executor,
    sql`WITH current AS (
          SELECT id, balance - held AS free, NOT ${owesNothing(input.accountId)} AS owes,
                 CASE WHEN ${input.whole} AND ${input.max}::bigint <= balance - held THEN ${input.max}::bigint
                      ELSE LEAST(${input.max}::bigint, GREATEST(${input.min}::bigint, (balance - held) / ${input.share}::bigint), balance - held)
                 END AS amount
          FROM accounts WHERE id = ${input.accountId} FOR UPDATE
        ), updated AS (
          UPDATE accounts AS a SET held = a.held + c.amount
          FROM current AS c
          WHERE a.id = c.id AND c.amount >= ${input.min}::bigint AND (c.amount > 0 OR ${input.max}::bigint = 0)
            AND a.balance - a.held >= c.amount
            AND NOT c.owes
          RETURNING a.id, a.balance - a.held AS available, c.amount
        ), inserted AS (
          INSERT INTO holds (id, account_id, amount, expires_at, owner)
          SELECT ${holdId}, id, amount, now() + make_interval(secs => ${input.ttlSeconds}), ${input.owner} FROM updated
          RETURNING 1
        )
        -- Data-modifying CTEs always run to completion, read or not.
        SELECT c.free, c.owes, u.amount, u.available FROM current AS c LEFT JOIN updated AS u ON true`,
  );
  const row = rows[0];
  if (!row) return { type: "insufficient", available: 0n };
  if (row.amount === null || row.available === null)
    return { type: "insufficient", available: row.owes ? 0n : BigInt(row.free), owes: row.owes };
  return { type: "held", holdId, amount: BigInt(row.amount), availableAfter: BigInt(row.available) };
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

/**
 * Releases holds past their expiry that no registered instance owns: what a crashed process
 * left behind. A registered instance's holds are its own (kept alive while it runs) or, once
 * it is dead, released by hold-keeper.ts only after its journal is replayed. Returns how many.
 */
export async function releaseExpiredHolds(database: Database, now: Date = new Date()): Promise<number> {
  return database.transaction(async (transaction) => {
    const released = await queryRows<{ account_id: string | bigint; amount: string | bigint }>(
      transaction,
      sql`DELETE FROM holds WHERE expires_at < ${now.toISOString()}::timestamptz
            AND (owner IS NULL OR owner NOT IN (SELECT id FROM gateway_instances))
          RETURNING account_id, amount`,
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
