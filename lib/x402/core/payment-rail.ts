import type { Database } from "../../db/client";
import type { Env } from "../../env";
import type { PaymentRequirementsEntry } from "./payment-required";
import type { NewQuoteOption, QuoteOption, StoredQuote } from "./quote-store";
import type { Settlement } from "./settlement";

/**
 * The rail seam. A **rail** is everything the gateway knows about taking x402 payments on one
 * network family (a CAIP-2 namespace: `solana`, `eip155`), behind this one interface, in its
 * own folder `lib/x402/rails/<family>/`, registered by one line in `lib/x402/rails/registry.ts`.
 * Inside a rail, a **mechanism** is one way to pay (`solana-native`, `solana-exact`,
 * `eip155-exact`); each option row of a quote names the mechanism that issued it. The core
 * prices, stores quotes, reads payment headers, runs the checks every payment shares, credits
 * and receipts; it never knows which chain it is talking to.
 */

/** The CAIP-2 namespace of `network` (`solana` of `solana:devnet`); undefined for an empty one. */
export function networkFamily(network: string): string | undefined {
  return network.split(":", 1)[0] || undefined;
}

/** A payment proof for a chain, as the header carried it; which chain is the rail's business. */
export type ChainPaymentProof =
  | {
      /** A transfer the payer broadcast itself, named by its transaction (the reference service's form). */
      type: "native";
      quoteId: string;
      /** Empty when the client left it out (the first registered family's clients may). */
      network: string;
      asset: string;
      payerWallet: string;
      signature: string;
      /** Optional wallet signature over the quote id, binding a harvested transfer to its payer. */
      proof: string | undefined;
    }
  | {
      /** A standard x402 v2 payload, settled by the rail (co-signed, or through a facilitator). */
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

/** What a rail's `verify` gets: the quote, the option of it the proof pays, and the proof. */
export interface RailPayment {
  quote: StoredQuote;
  option: QuoteOption;
  proof: ChainPaymentProof;
}

/**
 * A payment that passed every check of its own. `settle` moves it (or credits what already
 * moved) and holds the quote's cap.
 */
export type VerifiedPayment =
  /**
   * Nothing has moved yet: `settlePayment` first checks that the quote is still open and the
   * request still servable, so no money moves for a request that will not be served.
   */
  | { type: "authorized"; settle(): Promise<Settlement> }
  /**
   * The value already left the payer (a transfer they broadcast, a transaction already sent):
   * it is credited whatever the quote's state, and the rail checked its own time window.
   */
  | { type: "landed"; settle(): Promise<Settlement> };

type WalletProofResult = { type: "valid" } | { type: "invalid"; message: string };

export interface PaymentRail {
  readonly family: string;
  /** The options this rail offers for a cap in USDC microunits; [] when it offers none right now. */
  quote(capMicrounits: bigint): Promise<NewQuoteOption[]>;
  /** The `accepts` entries for this rail's stored options of a quote, in their order. */
  accepts(
    quote: StoredQuote,
    options: QuoteOption[],
    resourceUrl: string,
  ): Promise<PaymentRequirementsEntry[]>;
  /** The option of `quote` the proof pays (network, mechanism, asset); throws a GatewayError when none. */
  optionFor(quote: StoredQuote, proof: ChainPaymentProof): Promise<QuoteOption>;
  /** Checks a payment without moving any money; throws a GatewayError on refusal. */
  verify(payment: RailPayment): Promise<VerifiedPayment>;
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

/** What a rail is built from: the gateway's settings and its database. */
interface RailDeps {
  env: Env;
  database: Database;
}

/** One family's line in the registry: its name for people, and how its rail is built. */
export interface RailDefinition {
  family: string;
  /** How messages name the family: `Solana`, `Base`. */
  label: string;
  /** The rail, or undefined when this gateway is not configured for the family. */
  create(deps: RailDeps): PaymentRail | undefined;
}

/** One gateway's rails: those it is configured for, and every family it has code for. */
export interface RailSet {
  /** The configured rails, in registration order, which is the order their entries are offered. */
  configured: readonly PaymentRail[];
  /**
   * Every registered family, configured or not, in registration order. The first is the
   * reference service's: its self-broadcast clients may leave the network out.
   */
  registered: readonly Pick<RailDefinition, "family" | "label">[];
}

/** The spend message every family signs for the `balance` scheme (Ed25519 on Solana, EIP-191 on EVM). */
const BALANCE_SPEND_PREFIX = "usepod-x402-spend:";

export function balanceSpendMessage(quoteId: string): string {
  return `${BALANCE_SPEND_PREFIX}${quoteId}`;
}
