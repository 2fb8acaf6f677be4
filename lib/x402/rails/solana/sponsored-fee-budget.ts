import { type FeeBudget, feesSpent, reserveFee, settleFee } from "../../../chains/daily-fee-budget";
import type { Executor } from "../../../db/client";

/**
 * The daily budget for fees the gateway sponsors on co-signed (standard-scheme) payments,
 * in lamports: reserved before broadcast, given back when the transaction never landed.
 */
const sponsoredFees: FeeBudget = { table: "x402_sponsored_fees", spentColumn: "spent_lamports", key: {} };

export function reserveSponsoredFee(
  executor: Executor,
  input: { day: string; lamports: bigint; dailyBudgetLamports: bigint },
): Promise<boolean> {
  return reserveFee(executor, sponsoredFees, {
    day: input.day,
    amount: input.lamports,
    dailyLimit: input.dailyBudgetLamports,
  });
}

/** Gives back a reservation whose transaction never landed (no fee was paid). */
export function refundSponsoredFee(
  executor: Executor,
  input: { day: string; lamports: bigint },
): Promise<void> {
  return settleFee(executor, sponsoredFees, { day: input.day, reserved: input.lamports, spent: 0n });
}

export function sponsoredFeesSpent(executor: Executor, day: string): Promise<bigint> {
  return feesSpent(executor, sponsoredFees, day);
}
