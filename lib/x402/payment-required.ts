import type { Address } from "@solana/kit";
import { WSOL_MINT } from "../chains/solana/constants";
import type { StoredQuote } from "./quote-store";
import { type SolanaTerms, solanaTermsOf } from "./solana-terms";

/**
 * The PAYMENT-REQUIRED document. Native entries come first, in the shape self-broadcasting
 * clients of the reference service read (`asset` ticker, `pay_to`, `amount_microunits`,
 * `mode`, and the request binding), and they also carry the v2 fields (`amount`, `payTo`,
 * `maxTimeoutSeconds`) so the whole document validates against the official x402 schemas.
 * Standard-dialect entries follow, with the mint as `asset` and `extra.feePayer`, for
 * clients built on the x402 libraries.
 *
 * @see reference-service.md §8.3, x402-protocol.md §2.1–2.2 and §6
 */

export const CAP_MODE = "cap-with-surplus-credit";

const BALANCE_HINT =
  'wallets with an x402 surplus balance may retry with scheme "balance": sign "usepod-x402-spend:<quote_id>" with the payer wallet and send it as proof';

export interface SolanaAcceptsInput {
  quote: StoredQuote;
  terms: SolanaTerms;
  usdcMint: Address;
  resourceUrl: string;
  maxTimeoutSeconds: number;
}

export type PaymentRequirementsEntry = Record<string, unknown> & {
  scheme: string;
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
};

export interface PaymentRequiredDocument {
  x402_version: 2;
  x402Version: 2;
  quote_id: string;
  error: string;
  resource: { url: string; description: string; mimeType: string };
  accepts: PaymentRequirementsEntry[];
  extensions: Record<string, unknown>;
}

/** The memo a standard-scheme transaction must carry: it ties the on-chain transfer to its quote. */
export function quoteMemo(quoteId: string): string {
  return `pod-x402:${quoteId}`;
}

/** What every entry of a quote repeats: the reference service's request binding. */
export function quoteBinding(quote: StoredQuote): Record<string, unknown> {
  return {
    x402_version: 2,
    quote_id: quote.id,
    expires_at: quote.expiresAt.toISOString(),
    method: quote.method,
    path: quote.path,
    body_hash: quote.bodyHash,
    model: quote.model,
  };
}

export function quoteDescription(quote: StoredQuote): string {
  return `Pod Gateway inference: ${quote.model}`;
}

/** The whole document: every rail's entries, in the order the rails were asked. */
export function buildPaymentRequired(
  quote: StoredQuote,
  accepts: PaymentRequirementsEntry[],
  resourceUrl: string,
): PaymentRequiredDocument {
  return {
    x402_version: 2,
    x402Version: 2,
    quote_id: quote.id,
    error: "Payment required. Retry the same request with a PAYMENT-SIGNATURE header.",
    resource: { url: resourceUrl, description: quoteDescription(quote), mimeType: "application/json" },
    accepts,
    extensions: {},
  };
}

/** Solana's entries: native USDC and SOL first, then the co-signed standard USDC and wSOL. */
export function solanaAccepts(input: SolanaAcceptsInput): PaymentRequirementsEntry[] {
  const { quote, terms } = input;
  const binding = quoteBinding(quote);
  const native = (asset: "USDC" | "SOL", amount: bigint): PaymentRequirementsEntry => ({
    ...binding,
    scheme: "exact",
    network: terms.network,
    pay_to: terms.payTo,
    asset,
    amount_microunits: Number(amount),
    mode: CAP_MODE,
    ...(asset === "USDC" ? { balance_hint: BALANCE_HINT } : {}),
    amount: amount.toString(),
    payTo: terms.payTo,
    maxTimeoutSeconds: input.maxTimeoutSeconds,
    extra: { quote_id: quote.id },
  });
  const standard = (mint: Address, amount: bigint, feePayer: string): PaymentRequirementsEntry => ({
    ...binding,
    scheme: "exact",
    network: terms.network,
    pay_to: terms.payTo,
    asset: mint,
    amount_microunits: Number(amount),
    mode: CAP_MODE,
    amount: amount.toString(),
    maxAmountRequired: amount.toString(),
    payTo: terms.payTo,
    maxTimeoutSeconds: input.maxTimeoutSeconds,
    resource: input.resourceUrl,
    description: quoteDescription(quote),
    mimeType: "application/json",
    extra: { feePayer, memo: quoteMemo(quote.id), quote_id: quote.id },
  });

  const accepts: PaymentRequirementsEntry[] = [native("USDC", terms.usdcMicrounits)];
  if (terms.capLamports !== null) accepts.push(native("SOL", terms.capLamports));
  if (terms.feePayer !== null) {
    if (terms.standardMicrounits !== null)
      accepts.push(standard(input.usdcMint, terms.standardMicrounits, terms.feePayer));
    if (terms.standardLamports !== null)
      accepts.push(standard(WSOL_MINT, terms.standardLamports, terms.feePayer));
  }
  return accepts;
}

/** The requirements a standard payment is verified against: always rebuilt from our quote, never the client's echo. */
export function standardRequirements(
  quote: StoredQuote,
  rail: { mint: Address; amount: bigint },
  maxTimeoutSeconds: number,
): PaymentRequirementsEntry {
  const terms = solanaTermsOf(quote);
  return {
    scheme: "exact",
    network: terms?.network ?? "",
    asset: rail.mint,
    amount: rail.amount.toString(),
    payTo: terms?.payTo ?? "",
    maxTimeoutSeconds,
    extra: { feePayer: terms?.feePayer ?? null, memo: quoteMemo(quote.id) },
  };
}
