/** One thing the ledger and a source of truth disagree on, to the microunit. */
export interface Difference {
  source: "ledger" | "credits" | "stripe" | "solana" | "base";
  /** What it is about: a Stripe session, a transaction signature, a payout, an account. */
  reference: string;
  /** What the source says minus what the ledger booked (0 where the difference is not an amount). */
  microunits: bigint;
  detail: string;
}
