import type { Address } from "@solana/kit";
import { WSOL_MINT } from "../chains/solana/constants";
import type { StoredQuote } from "./quote-store";

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

export const BALANCE_HINT =
  'wallets with an x402 surplus balance may retry with scheme "balance": sign "usepod-x402-spend:<quote_id>" with the payer wallet and send it as proof';

export interface PaymentRequiredInput {
  quote: StoredQuote;
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

export function buildPaymentRequired(input: PaymentRequiredInput): PaymentRequiredDocument {
  const { quote } = input;
  const description = `Pod Gateway inference: ${quote.model}`;
  const binding = {
    x402_version: 2,
    quote_id: quote.id,
    expires_at: quote.expiresAt.toISOString(),
    method: quote.method,
    path: quote.path,
    body_hash: quote.bodyHash,
    model: quote.model,
  };
  const native = (asset: "USDC" | "SOL", amount: bigint): PaymentRequirementsEntry => ({
    ...binding,
    scheme: "exact",
    network: quote.network,
    pay_to: quote.payTo,
    asset,
    amount_microunits: Number(amount),
    mode: CAP_MODE,
    ...(asset === "USDC" ? { balance_hint: BALANCE_HINT } : {}),
    amount: amount.toString(),
    payTo: quote.payTo,
    maxTimeoutSeconds: input.maxTimeoutSeconds,
    extra: { quote_id: quote.id },
  });
  const standard = (mint: Address, amount: bigint, feePayer: string): PaymentRequirementsEntry => ({
    ...binding,
    scheme: "exact",
    network: quote.network,
    pay_to: quote.payTo,
    asset: mint,
    amount_microunits: Number(amount),
    mode: CAP_MODE,
    amount: amount.toString(),
    maxAmountRequired: amount.toString(),
    payTo: quote.payTo,
    maxTimeoutSeconds: input.maxTimeoutSeconds,
    resource: input.resourceUrl,
    description,
    mimeType: "application/json",
    extra: { feePayer, memo: quoteMemo(quote.id), quote_id: quote.id },
  });

  const accepts: PaymentRequirementsEntry[] = [native("USDC", quote.capMicrounits)];
  if (quote.capLamports !== null) accepts.push(native("SOL", quote.capLamports));
  if (quote.feePayer !== null) {
    accepts.push(standard(input.usdcMint, quote.standardMicrounits, quote.feePayer));
    if (quote.standardLamports !== null)
      accepts.push(standard(WSOL_MINT, quote.standardLamports, quote.feePayer));
  }
  return {
    x402_version: 2,
    x402Version: 2,
    quote_id: quote.id,
    error: "Payment required. Retry the same request with a PAYMENT-SIGNATURE header.",
    resource: { url: input.resourceUrl, description, mimeType: "application/json" },
    accepts,
    extensions: {},
  };
}

/** The requirements a standard payment is verified against: always rebuilt from our quote, never the client's echo. */
export function standardRequirements(
  quote: StoredQuote,
  rail: { mint: Address; amount: bigint },
  maxTimeoutSeconds: number,
): PaymentRequirementsEntry {
  return {
    scheme: "exact",
    network: quote.network,
    asset: rail.mint,
    amount: rail.amount.toString(),
    payTo: quote.payTo,
    maxTimeoutSeconds,
    extra: { feePayer: quote.feePayer, memo: quoteMemo(quote.id) },
  };
}
