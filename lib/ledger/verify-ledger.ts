import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryRows } from "../db/client";

export interface LedgerProblem {
  kind: "unbalanced_transaction" | "balance_mismatch" | "held_mismatch" | "negative_balance";
  ref: string;
  detail: string;
}

/**
 * Proves the books: every transaction sums to zero, every balance equals the sum of its
 * entries, every `held` equals its open holds, and no internal account is negative.
 */
export async function verifyLedger(executor: Executor): Promise<LedgerProblem[]> {
  const problems: LedgerProblem[] = [];
  const unbalanced = await queryRows<{ transaction_id: string; total: string }>(
    executor,
    sql`SELECT transaction_id, SUM(amount)::text AS total FROM ledger_entries GROUP BY transaction_id HAVING SUM(amount) <> 0`,
  );
  for (const row of unbalanced)
    problems.push({
      kind: "unbalanced_transaction",
      ref: row.transaction_id,
      detail: `sums to ${row.total}`,
    });

  const mismatched = await queryRows<{ id: string; balance: string; entries: string }>(
    executor,
    sql`SELECT a.id::text AS id, a.balance::text AS balance, COALESCE(SUM(e.amount), 0)::text AS entries
        FROM accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
        GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(SUM(e.amount), 0)`,
  );
  for (const row of mismatched)
    problems.push({
      kind: "balance_mismatch",
      ref: row.id,
      detail: `balance ${row.balance} vs entries ${row.entries}`,
    });

  const heldMismatch = await queryRows<{ id: string; held: string; holds: string }>(
    executor,
    sql`SELECT a.id::text AS id, a.held::text AS held, COALESCE(SUM(h.amount), 0)::text AS holds
        FROM accounts a LEFT JOIN holds h ON h.account_id = a.id
        GROUP BY a.id, a.held HAVING a.held <> COALESCE(SUM(h.amount), 0)`,
  );
  for (const row of heldMismatch)
    problems.push({ kind: "held_mismatch", ref: row.id, detail: `held ${row.held} vs holds ${row.holds}` });

  const negative = await queryRows<{ id: string; balance: string }>(
    executor,
    sql`SELECT id::text AS id, balance::text AS balance FROM accounts WHERE kind <> 'external' AND (balance < 0 OR balance - held < 0)`,
  );
  for (const row of negative)
    problems.push({ kind: "negative_balance", ref: row.id, detail: `balance ${row.balance}` });
  return problems;
}
