import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryRows } from "../db/client";

/**
 * The daily budget for fees the gateway sponsors on co-signed (standard-scheme) payments.
 * Spending is reserved before broadcast with one conditional upsert, so concurrent
 * settlements in any number of processes can never push a day past the budget.
 */

/** The UTC calendar day a spend counts against. */
export function budgetDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

export async function reserveSponsoredFee(
  executor: Executor,
  input: { day: string; lamports: bigint; dailyBudgetLamports: bigint },
): Promise<boolean> {
  if (input.lamports > input.dailyBudgetLamports) return false;
  const rows = await queryRows<{ spent_lamports: string | bigint }>(
    executor,
    sql`INSERT INTO x402_sponsored_fees (day, spent_lamports, settlements)
        VALUES (${input.day}::date, ${input.lamports}, 1)
        ON CONFLICT (day) DO UPDATE
          SET spent_lamports = x402_sponsored_fees.spent_lamports + EXCLUDED.spent_lamports,
              settlements = x402_sponsored_fees.settlements + 1
          WHERE x402_sponsored_fees.spent_lamports + EXCLUDED.spent_lamports <= ${input.dailyBudgetLamports}
        RETURNING spent_lamports`,
  );
  return rows.length === 1;
}

/** Gives back a reservation whose transaction never landed (no fee was paid). */
export async function refundSponsoredFee(
  executor: Executor,
  input: { day: string; lamports: bigint },
): Promise<void> {
  await executor.execute(
    sql`UPDATE x402_sponsored_fees
        SET spent_lamports = GREATEST(spent_lamports - ${input.lamports}, 0),
            settlements = GREATEST(settlements - 1, 0)
        WHERE day = ${input.day}::date`,
  );
}

export async function sponsoredFeesSpent(executor: Executor, day: string): Promise<bigint> {
  const rows = await queryRows<{ spent_lamports: string | bigint }>(
    executor,
    sql`SELECT spent_lamports FROM x402_sponsored_fees WHERE day = ${day}::date`,
  );
  return rows[0] ? BigInt(rows[0].spent_lamports) : 0n;
}
