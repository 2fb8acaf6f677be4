import type { PaymentAsset } from "./payment-claims";
import type { StoredQuote } from "./quote-store";

/** A payment verified, credited to the payer's wallet, and its cap held there for this request. */
export interface Settlement {
  scheme: "native" | "standard" | "balance";
  quote: StoredQuote;
  asset: PaymentAsset;
  network: string;
  payerWallet: string;
  /** The on-chain signature or transaction hash; empty for a balance spend. */
  transaction: string;
  /** Atomic units that reached pay_to (lamports on SOL); 0 for a balance spend. */
  receivedAmount: bigint;
  /** What the wallet was credited by this payment, in microunits; 0 for a balance spend. */
  creditedMicrounits: bigint;
  walletAccountId: bigint;
  holdId: string;
  availableAfter: bigint;
}
