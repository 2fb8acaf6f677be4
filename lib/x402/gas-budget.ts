import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryRows } from "../db/client";

/**
 * The daily gas budget of the in-process EVM facilitator, per network. A settlement reserves
 * its worst-case gas with one conditional upsert before anything is submitted, so concurrent
 * settlements in any number of processes never push a day past the budget; the receipt's
 * actual cost then replaces the reservation.
 */
export async function reserveGas(
  executor: Executor,
  input: { network: string; day: string; wei: bigint; dailyBudgetWei: bigint },
): Promise<boolean> {
  if (input.wei > input.dailyBudgetWei) return false;
  const rows = await queryRows<{ spent_wei: string | bigint }>(
    executor,
    sql`INSERT INTO x402_gas_spend (network, day, spent_wei, settlements)
        VALUES (${input.network}, ${input.day}::date, ${input.wei}, 1)
        ON CONFLICT (network, day) DO UPDATE
          SET spent_wei = x402_gas_spend.spent_wei + EXCLUDED.spent_wei,
              settlements = x402_gas_spend.settlements + 1
          WHERE x402_gas_spend.spent_wei + EXCLUDED.spent_wei <= ${input.dailyBudgetWei}
        RETURNING spent_wei`,
  );
  return rows.length === 1;
}

/** Replaces a reservation by what was actually spent (0 when nothing was submitted). */
export async function adjustGas(
  executor: Executor,
  input: { network: string; day: string; reservedWei: bigint; spentWei: bigint },
): Promise<void> {
  await executor.execute(
    sql`UPDATE x402_gas_spend
        SET spent_wei = GREATEST(spent_wei - ${input.reservedWei} + ${input.spentWei}, 0)
        WHERE network = ${input.network} AND day = ${input.day}::date`,
  );
}
