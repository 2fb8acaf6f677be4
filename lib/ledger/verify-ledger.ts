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

  problems.push(
    ...(await sumMismatches(executor, "balance_mismatch", "balance", "ledger_entries", "entries")),
  );
  problems.push(...(await sumMismatches(executor, "held_mismatch", "held", "holds", "holds")));

  const negative = await queryRows<{ id: string; balance: string }>(
    executor,
    sql`SELECT id::text AS id, balance::text AS balance FROM accounts WHERE kind <> 'external' AND (balance < 0 OR balance - held < 0)`,
  );
  for (const row of negative)
    problems.push({ kind: "negative_balance", ref: row.id, detail: `balance ${row.balance}` });
  return problems;
}

/**
 * Accounts whose stored `column` is not the sum of their rows in `table` (the balance and its
 * entries, `held` and its open holds). The names are fixed literals, never input.
 */
async function sumMismatches(
  executor: Executor,
  kind: "balance_mismatch" | "held_mismatch",
  column: "balance" | "held",
  table: "ledger_entries" | "holds",
  rowsName: string,
): Promise<LedgerProblem[]> {
  const stored = sql.raw(`a.${column}`);
  const rows = await queryRows<{ id: string; stored: string; summed: string }>(
    executor,
    sql`SELECT a.id::text AS id, ${stored}::text AS stored, COALESCE(SUM(r.amount), 0)::text AS summed
        FROM accounts a LEFT JOIN ${sql.raw(table)} r ON r.account_id = a.id
        GROUP BY a.id, ${stored} HAVING ${stored} <> COALESCE(SUM(r.amount), 0)`,
  );
  return rows.map((row) => ({
    kind,
    ref: row.id,
    detail: `${column} ${row.stored} vs ${rowsName} ${row.summed}`,
  }));
}
