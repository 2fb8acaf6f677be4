import type { FeeBudget } from "../daily-fee-budget";

/**
 * The settler's daily gas budget, per network, in wei: every transferWithAuthorization the
 * gateway submits itself (x402 payments on Base with the in-process facilitator, Base
 * deposits) reserves its worst case before it is sent, and the receipt's actual cost replaces it.
 */
export function gasBudget(network: string): FeeBudget {
  return { table: "x402_gas_spend", spentColumn: "spent_wei", key: { network } };
}

/** Worst-case gas of one transferWithAuthorization, reserved from the daily budget before submission. */
export const GAS_RESERVATION = 150_000n;
