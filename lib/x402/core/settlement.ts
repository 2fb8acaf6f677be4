import type { Database } from "../../db/client";
import type { GatewayError } from "../../errors/gateway-error";
import type { StoredQuote } from "./quote-store";

/** What settling a payment for a quote needs, whatever the chain. */
export interface PaymentContext {
  database: Database;
  holdTtlSeconds: number;
  /** The quote the payment names, already bound to this request's bytes. */
  quote: StoredQuote;
  /** Why the request cannot be served within the quote's cap right now; undefined when it can. */
  unservable(): GatewayError | undefined;
}

/** A payment verified, credited to the payer's wallet, and its cap held there for this request. */
export interface Settlement {
  scheme: "native" | "standard" | "balance";
  quote: StoredQuote;
  asset: string;
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
