import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryRows } from "../db/client";

/**
 * Fees the gateway pays on a chain (sponsored Solana fees, EVM gas), capped per UTC day. A
 * spend is reserved before anything is sent, with one conditional upsert, so concurrent
 * settlements in any number of processes never push a day past its budget; what was actually
 * paid then replaces the reservation (nothing, when nothing was sent).
 */
export interface FeeBudget {
  /** The table a day's spend is kept in (one row per key and day) and its spend column. */
  table: string;
  spentColumn: string;
  /** The row's key besides the day: `{}`, or `{ network }` for a table kept per network. */
  key: Record<string, string>;
}

/** The UTC calendar day a spend counts against. */
export function budgetDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

function rowOf(budget: FeeBudget, day: string) {
  const keys = Object.entries(budget.key);
  return {
    columns: sql.join([...keys.map(([column]) => sql.identifier(column)), sql`day`], sql`, `),
    values: sql.join([...keys.map(([, value]) => sql`${value}`), sql`${day}::date`], sql`, `),
    where: sql.join(
      [...keys.map(([column, value]) => sql`${sql.identifier(column)} = ${value}`), sql`day = ${day}::date`],
      sql` AND `,
    ),
  };
}

/** Reserves `amount` from the day's budget; false (nothing reserved) when it would go over. */
export async function reserveFee(
  executor: Executor,
  budget: FeeBudget,
  input: { day: string; amount: bigint; dailyLimit: bigint },
): Promise<boolean> {
  if (input.amount > input.dailyLimit) return false;
  const table = sql.identifier(budget.table);
  const spent = sql.identifier(budget.spentColumn);
  const row = rowOf(budget, input.day);
  const rows = await queryRows<Record<string, unknown>>(
    executor,
    sql`INSERT INTO ${table} (${row.columns}, ${spent}, settlements)
        VALUES (${row.values}, ${input.amount}, 1)
        ON CONFLICT (${row.columns}) DO UPDATE
          SET ${spent} = ${table}.${spent} + EXCLUDED.${spent},
              settlements = ${table}.settlements + 1
          WHERE ${table}.${spent} + EXCLUDED.${spent} <= ${input.dailyLimit}
        RETURNING 1 AS reserved`,
  );
  return rows.length === 1;
}

/**
 * Replaces a reservation by what was actually paid. A reservation given back whole (nothing
 * was sent, so no fee was paid) no longer counts as a settlement of the day.
 */
export async function settleFee(
  executor: Executor,
  budget: FeeBudget,
  input: { day: string; reserved: bigint; spent: bigint },
): Promise<void> {
  const spent = sql.identifier(budget.spentColumn);
  const uncount = input.spent === 0n ? sql`, settlements = GREATEST(settlements - 1, 0)` : sql``;
  await executor.execute(
    sql`UPDATE ${sql.identifier(budget.table)}
        SET ${spent} = GREATEST(${spent} - ${input.reserved} + ${input.spent}, 0)${uncount}
        WHERE ${rowOf(budget, input.day).where}`,
  );
}

/** What the day's budget has spent (and still holds reserved) so far. */
export async function feesSpent(executor: Executor, budget: FeeBudget, day: string): Promise<bigint> {
  const rows = await queryRows<{ spent: string | bigint }>(
    executor,
    sql`SELECT ${sql.identifier(budget.spentColumn)} AS spent FROM ${sql.identifier(budget.table)}
        WHERE ${rowOf(budget, day).where}`,
  );
  return rows[0] ? BigInt(rows[0].spent) : 0n;
}
