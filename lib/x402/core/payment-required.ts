import type { StoredQuote } from "./quote-store";

/**
 * The PAYMENT-REQUIRED document: the quote, then every rail's `accepts` entries in offer
 * order. Each entry carries the reference service's request binding and fields (`pay_to`,
 * `amount_microunits`, `mode`) beside the x402 v2 ones (`amount`, `payTo`,
 * `maxTimeoutSeconds`), so the whole document validates against the official x402 schemas
 * and clients of either read it.
 *
 * @see reference-service.md §8.3, x402-protocol.md §2.1–2.2 and §6
 */

export const CAP_MODE = "cap-with-surplus-credit";

/** What an entry tells a wallet that already holds surplus credit. */
export const BALANCE_HINT =
  'wallets with an x402 surplus balance may retry with scheme "balance": sign "usepod-x402-spend:<quote_id>" with the payer wallet and send it as proof';

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

function quoteDescription(quote: StoredQuote): string {
  return `Pod Gateway inference: ${quote.model}`;
}

/**
 * A standard x402 `exact` entry, for clients built on the x402 libraries: the asset is a mint
 * or a contract, `extra` what the family's scheme needs (a fee payer, an EIP-712 domain).
 */
export function exactEntry(
  quote: StoredQuote,
  entry: {
    network: string;
    payTo: string;
    asset: string;
    amount: bigint;
    maxTimeoutSeconds: number;
    resourceUrl: string;
    extra: Record<string, unknown>;
  },
): PaymentRequirementsEntry {
  return {
    ...quoteBinding(quote),
    scheme: "exact",
    network: entry.network,
    pay_to: entry.payTo,
    asset: entry.asset,
    amount_microunits: Number(entry.amount),
    mode: CAP_MODE,
    amount: entry.amount.toString(),
    maxAmountRequired: entry.amount.toString(),
    payTo: entry.payTo,
    maxTimeoutSeconds: entry.maxTimeoutSeconds,
    resource: entry.resourceUrl,
    description: quoteDescription(quote),
    mimeType: "application/json",
    extra: { ...entry.extra, quote_id: quote.id },
  };
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
