import type { AppContext } from "../app-context";
import type { PaymentAsset } from "./payment-claims";
import type { PricedRequest } from "./price-request";
import type { StoredQuote } from "./quote-store";
import type { X402Services } from "./x402-services";

/** A payment verified, credited to the payer's wallet, and its cap held there for this request. */
export interface Settlement {
  scheme: "native" | "standard" | "balance";
  quote: StoredQuote;
  asset: PaymentAsset;
  network: string;
  payerWallet: string;
  /** The on-chain signature; empty for a balance spend. */
  transaction: string;
  /** Atomic units that reached pay_to (lamports on SOL); 0 for a balance spend. */
  receivedAmount: bigint;
  /** What the wallet was credited by this payment, in microunits; 0 for a balance spend. */
  creditedMicrounits: bigint;
  walletAccountId: bigint;
  holdId: string;
  availableAfter: bigint;
}

export interface SettleContext {
  app: AppContext;
  services: X402Services;
  priced: PricedRequest;
  quote: StoredQuote;
}
