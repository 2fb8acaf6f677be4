import type { Address } from "@solana/kit";
import {
  BALANCE_HINT,
  CAP_MODE,
  exactEntry,
  type PaymentRequirementsEntry,
  quoteBinding,
} from "../../core/payment-required";
import type { QuoteOption, StoredQuote } from "../../core/quote-store";
import { assetOf, mintOf, SOLANA_NATIVE } from "./mechanisms";

/**
 * Solana's `accepts` entries, one per option in offer order: native USDC and SOL first, in the
 * shape self-broadcasting clients of the reference service read (`asset` ticker, `pay_to`,
 * `amount_microunits`, `mode`, the request binding) plus the v2 fields; then the co-signed
 * standard USDC and wSOL entries, with the mint as `asset` and `extra.feePayer`, for clients
 * built on the x402 libraries.
 */
export function solanaAccepts(input: {
  quote: StoredQuote;
  options: QuoteOption[];
  usdcMint: Address;
  resourceUrl: string;
  maxTimeoutSeconds: number;
}): PaymentRequirementsEntry[] {
  const { quote } = input;
  return input.options.map((option) =>
    option.mechanism === SOLANA_NATIVE
      ? {
          ...quoteBinding(quote),
          scheme: "exact",
          network: option.network,
          pay_to: option.payTo,
          asset: option.asset,
          amount_microunits: Number(option.amount),
          mode: CAP_MODE,
          ...(assetOf(option) === "USDC" ? { balance_hint: BALANCE_HINT } : {}),
          amount: option.amount.toString(),
          payTo: option.payTo,
          maxTimeoutSeconds: input.maxTimeoutSeconds,
          extra: { quote_id: quote.id },
        }
      : exactEntry(quote, {
          network: option.network,
          payTo: option.payTo,
          asset: mintOf(option, input.usdcMint),
          amount: option.amount,
          maxTimeoutSeconds: input.maxTimeoutSeconds,
          resourceUrl: input.resourceUrl,
          extra: { feePayer: option.details.fee_payer, memo: quoteMemo(quote.id) },
        }),
  );
}

/** The memo a standard-scheme transaction must carry: it ties the on-chain transfer to its quote. */
export function quoteMemo(quoteId: string): string {
  return `pod-x402:${quoteId}`;
}

/** The requirements a standard payment is verified against: always rebuilt from our option, never the client's echo. */
export function standardRequirements(
  quote: StoredQuote,
  option: QuoteOption,
  mint: Address,
  maxTimeoutSeconds: number,
): PaymentRequirementsEntry {
  return {
    scheme: "exact",
    network: option.network,
    asset: mint,
    amount: option.amount.toString(),
    payTo: option.payTo,
    maxTimeoutSeconds,
    extra: { feePayer: option.details.fee_payer ?? null, memo: quoteMemo(quote.id) },
  };
}
