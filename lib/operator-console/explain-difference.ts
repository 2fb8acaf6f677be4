import type { Difference } from "../reconcile/core/difference";

/** What a ledger self-check's finding means, for the operator who reads the reconcile report. */
const ledgerMeanings: Record<string, string> = {
  balance_mismatch:
    "the account's stored balance is not the sum of its entries: something changed it outside a ledger transaction",
  held_mismatch: "the account's held amount is not the sum of its open holds",
  unbalanced_transaction: "the transaction's entries do not sum to zero: money was made or lost in the books",
  negative_balance: "the balance is below zero, which only outside-world accounts may be",
};

const sourceMeanings: Record<Difference["source"], string> = {
  ledger: "the books disagree with themselves",
  credits: "a token was credited with no payment, deposit or logged operator action behind it",
  stripe:
    "Stripe's record of this card payment (or a charge or refund Stripe lists) and what the ledger booked for it differ",
  solana: "the chain's record of this transfer and what the ledger booked for it differ",
  base: "Base's record of this transfer and what the ledger booked for it differ",
};

/** A difference in words: what it is, and what the source says against the ledger. */
export function explainDifference(difference: Pick<Difference, "source" | "detail">): string {
  if (difference.source === "ledger") {
    const kind = /^([a-z_]+):/.exec(difference.detail)?.[1] ?? "";
    return ledgerMeanings[kind] ?? sourceMeanings.ledger;
  }
  return sourceMeanings[difference.source];
}
