import type { AppContext } from "../../app-context";
import type { PaymentRequirementsEntry } from "../payment-required";
import type { PricedRequest } from "../price-request";
import type { NewQuoteOption, QuoteOption, StoredQuote } from "../quote-store";
import type { Settlement } from "../settlement";

/**
 * The payment-rail seam: everything chain-specific about x402 sits behind one interface per
 * network family (the CAIP-2 namespace, `solana` or `eip155`). The pipeline prices a request,
 * asks each rail for its options, stores them as rows, and hands a payment to the rail of
 * the network it names; it never knows which chain it is talking to.
 */

export type NetworkFamily = "solana" | "eip155";

/** The CAIP-2 namespace of `network`, when it is one the gateway has a rail for. */
export function networkFamily(network: string): NetworkFamily | undefined {
  const namespace = network.split(":", 1)[0];
  return namespace === "solana" || namespace === "eip155" ? namespace : undefined;
}

/** A payment proof reduced to what routing needs: which chain, and the parsed header. */
export type ChainPaymentProof =
  | {
      type: "native";
      quoteId: string;
      network: string;
      asset: string;
      payerWallet: string;
      signature: string;
      /** Optional wallet signature over the quote id, binding a harvested transfer to its payer. */
      proof: string | undefined;
    }
  | {
      type: "standard";
      quoteId: string | undefined;
      network: string;
      /** The asset the client chose (its echo of our accepts entry): a mint or a contract. */
      asset: string;
      /** The scheme payload as the client sent it (`transaction` on SVM, `authorization` + `signature` on EVM). */
      payload: Record<string, unknown>;
      /** The client's whole x402 v2 PaymentPayload, for a facilitator that wants it. */
      raw: Record<string, unknown>;
    };

export interface SettleContext {
  app: AppContext;
  priced: PricedRequest;
  quote: StoredQuote;
}

/** A payment that passed every check that moves no money; `settle` moves it and holds the cap. */
export interface VerifiedPayment {
  settle(): Promise<Settlement>;
}

type WalletProofResult = { type: "valid" } | { type: "invalid"; message: string };

export interface PaymentRail {
  readonly family: NetworkFamily;
  /** The options this rail offers for a cap in USDC microunits; [] when it offers none right now. */
  quote(capMicrounits: bigint): Promise<NewQuoteOption[]>;
  /** The `accepts` entries for this rail's stored options of a quote, in their order. */
  accepts(
    quote: StoredQuote,
    options: QuoteOption[],
    resourceUrl: string,
  ): Promise<PaymentRequirementsEntry[]>;
  /** Checks a payment for a quote without moving any money; throws a GatewayError on refusal. */
  verify(context: SettleContext, proof: ChainPaymentProof): Promise<VerifiedPayment>;
  /** Checks a `balance`-scheme proof: the payer's signature over the spend message of the quote. */
  verifyWalletProof(input: {
    quoteId: string;
    payerWallet: string;
    proof: string;
  }): Promise<WalletProofResult>;
  /** True when `wallet` is an address of this family (a wallet balance is keyed by it). */
  isWallet(wallet: string): boolean;
  /** The one spelling a wallet balance is keyed by (EVM checksum case; Solana as is). */
  canonicalWallet(wallet: string): string;
  /** Finishes payments a request left pending (crash, slow confirmation); returns how many. */
  reconcile(): Promise<number>;
}

/** The spend message both families sign for the `balance` scheme (Ed25519 on Solana, EIP-191 on EVM). */
const BALANCE_SPEND_PREFIX = "usepod-x402-spend:";

export function balanceSpendMessage(quoteId: string): string {
  return `${BALANCE_SPEND_PREFIX}${quoteId}`;
}
