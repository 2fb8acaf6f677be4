import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryPrepared } from "../db/client";
import type { HoldSizingRow } from "./holds";
import { owesNothing } from "./receivables";

export interface ExtendLeaseInput {
  leaseId: string;
  accountId: bigint;
  /** The least the lease must grow by; below it nothing is taken. */
  need: bigint;
  owner: string;
  ttlSeconds: number;
}

export type ExtendLeaseResult =
  | { type: "extended"; amount: bigint; freeAfter: bigint }
  /** `owes`: a refund or dispute left a receivable open, so nothing may be spent. */
  | { type: "insufficient"; free: bigint; owes: boolean };

/**
 * Grows a lease (a hold row this process draws many requests from) by `need` plus half of
 * what stays free, in one statement: the row lock sizes it from the latest balance, and the
 * other half stays for other replicas and for what the lease does not know about.
 */
export async function extendLease(executor: Executor, input: ExtendLeaseInput): Promise<ExtendLeaseResult> {
  const rows = await queryPrepared<HoldSizingRow>(
    executor,
    "extend_lease",
    sql`WITH current AS (
          SELECT id, balance - held AS free, NOT ${owesNothing(input.accountId)} AS owes,
                 LEAST(balance - held, ${input.need}::bigint + GREATEST(balance - held - ${input.need}::bigint, 0) / 2) AS amount
          FROM accounts WHERE id = ${input.accountId} FOR UPDATE
        ), updated AS (
          UPDATE accounts AS a SET held = a.held + c.amount
          FROM current AS c
          WHERE a.id = c.id AND c.amount >= ${input.need}::bigint AND c.amount > 0 AND NOT c.owes
          RETURNING a.id, c.amount, a.balance - a.held AS available
        ), lease AS (
          INSERT INTO holds (id, account_id, amount, expires_at, owner)
          SELECT ${input.leaseId}, id, amount, now() + make_interval(secs => ${input.ttlSeconds}), ${input.owner}
          FROM updated
          ON CONFLICT (id) DO UPDATE SET amount = holds.amount + excluded.amount, expires_at = excluded.expires_at
          RETURNING 1
        )
        -- Data-modifying CTEs always run to completion, read or not.
        SELECT c.free, c.owes, u.amount, u.available FROM current AS c LEFT JOIN updated AS u ON true`,
  );
  const row = rows[0];
  if (!row) return { type: "insufficient", free: 0n, owes: false };
  if (row.amount === null || row.available === null)
    return { type: "insufficient", free: row.owes ? 0n : BigInt(row.free), owes: row.owes };
  return { type: "extended", amount: BigInt(row.amount), freeAfter: BigInt(row.available) };
}

/** Gives a whole lease back to the balance; returns the account's free balance afterwards, if it held anything. */
export async function returnLease(executor: Executor, leaseId: string): Promise<bigint | undefined> {
  const rows = await queryPrepared<{ available: string | bigint }>(
    executor,
    "return_lease",
    sql`WITH released AS (
          DELETE FROM holds WHERE id = ${leaseId} RETURNING account_id, amount
        )
        UPDATE accounts AS a SET held = a.held - r.amount
        FROM released AS r WHERE a.id = r.account_id
        RETURNING a.balance - a.held AS available`,
  );
  const row = rows[0];
  return row ? BigInt(row.available) : undefined;
}
