import { sql } from "drizzle-orm";
import type { Database, Executor } from "../db/client";
import { queryRows } from "../db/client";
import { ensureAccount, systemAccounts } from "./accounts";
import { postTransaction } from "./post-transaction";

/**
 * A receivable is what a card refund or dispute reversed but the token's balance could not
 * give back at once: what it had already spent, and what its leases and requests in flight
 * held. While one is open the token cannot spend (holds and leases refuse it), and whatever
 * becomes free on the account (a lease coming back, a hold released, any new funding) is
 * collected first, oldest receivable first, each collection a balanced ledger transaction
 * (`receivable_collected`) in the token's activity.
 */

/** Collects what the account has free toward its open receivables; must run inside a transaction. */
export async function collectReceivables(executor: Executor, accountId: bigint): Promise<bigint> {
  const [account] = await queryRows<{ free: string | bigint }>(
    executor,
    sql`SELECT balance - held AS free FROM accounts WHERE id = ${accountId} FOR UPDATE`,
  );
  let free = account ? BigInt(account.free) : 0n;
  if (free <= 0n) return 0n;
  const open = await queryRows<{ id: string | bigint; outstanding: string | bigint; reference: string }>(
    executor,
    sql`SELECT id, outstanding_microunits AS outstanding, reference FROM receivables
        WHERE account_id = ${accountId} AND status = 'open' AND outstanding_microunits > 0
        ORDER BY id FOR UPDATE`,
  );
  if (open.length === 0) return 0n;
  const stripe = await ensureAccount(executor, systemAccounts.stripe.kind, systemAccounts.stripe.ref);
  let collected = 0n;
  for (const receivable of open) {
    if (free <= 0n) break;
    const outstanding = BigInt(receivable.outstanding);
    const take = outstanding < free ? outstanding : free;
    const left = outstanding - take;
    await postTransaction(executor, {
      kind: "receivable_collected",
      // Unique per step: the same receivable is collected in as many steps as funding arrives.
      idempotencyKey: `receivable:${receivable.id}:${left}`,
      metadata: {
        reason: "owed after a card refund or dispute",
        receivable_id: receivable.id.toString(),
        stripe_event_id: receivable.reference,
        outstanding_microunits: left.toString(),
      },
      entries: [
        { accountId, amount: -take },
        { accountId: stripe, amount: take },
      ],
    });
    await executor.execute(
      sql`UPDATE receivables SET outstanding_microunits = ${left},
                                 status = CASE WHEN ${left}::bigint = 0 THEN 'settled' ELSE status END
          WHERE id = ${receivable.id}`,
    );
    free -= take;
    collected += take;
  }
  return collected;
}

/** Accounts with an open receivable: they may not spend. */
export async function accountsOwing(executor: Executor): Promise<Set<bigint>> {
  const rows = await queryRows<{ account_id: string | bigint }>(
    executor,
    sql`SELECT DISTINCT account_id FROM receivables WHERE status = 'open' AND outstanding_microunits > 0`,
  );
  return new Set(rows.map((row) => BigInt(row.account_id)));
}

/** What the account still owes after refunds and disputes. */
export async function outstandingOf(executor: Executor, accountId: bigint): Promise<bigint> {
  const [row] = await queryRows<{ total: string | null }>(
    executor,
    sql`SELECT COALESCE(SUM(outstanding_microunits), 0)::text AS total FROM receivables
        WHERE account_id = ${accountId} AND status = 'open'`,
  );
  return BigInt(row?.total ?? "0");
}

/** Collects every owing account's free balance (what came back from leases and holds since). */
export async function collectOpenReceivables(database: Database): Promise<bigint> {
  let total = 0n;
  for (const accountId of await accountsOwing(database))
    total += await database.transaction((transaction) => collectReceivables(transaction, accountId));
  return total;
}

/** The SQL condition "this account has no open receivable", for hold and lease statements. */
export const owesNothing = (accountId: unknown) =>
  sql`NOT EXISTS (SELECT 1 FROM receivables AS r
                  WHERE r.account_id = ${accountId} AND r.status = 'open' AND r.outstanding_microunits > 0)`;
