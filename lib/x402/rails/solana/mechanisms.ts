import type { Address } from "@solana/kit";
import { WSOL_MINT } from "../../../chains/solana/constants";
import type { QuoteOption, StoredQuote } from "../../core/quote-store";
import { lamportsToMicrounits } from "./quote-amounts";

/**
 * The Solana rail's mechanisms, as its option rows name them: a transfer the payer broadcasts
 * itself (`solana-native`), and a standard x402 `exact` payment the gateway co-signs as fee
 * payer (`solana-exact`). Each is offered in USDC and in SOL; a SOL option carries the SOL/USD
 * rate it was priced at, and a co-signed one the fee payer it names.
 */
export const SOLANA_NATIVE = "solana-native";
export const SOLANA_EXACT = "solana-exact";

export type SolanaAsset = "USDC" | "SOL";

export function solanaOption(
  quote: StoredQuote,
  mechanism: typeof SOLANA_NATIVE | typeof SOLANA_EXACT,
  asset: string,
): QuoteOption | undefined {
  return quote.options.find((option) => option.mechanism === mechanism && option.asset === asset);
}

/** The option a co-signed payment pays, from the mint the client chose or the ticker a claim recorded. */
export function exactOptionFor(
  quote: StoredQuote,
  assetOrMint: string,
  usdcMint: Address,
): QuoteOption | undefined {
  if (assetOrMint === usdcMint || assetOrMint === "USDC") return solanaOption(quote, SOLANA_EXACT, "USDC");
  if (assetOrMint === WSOL_MINT || assetOrMint === "SOL") return solanaOption(quote, SOLANA_EXACT, "SOL");
  return undefined;
}

export function assetOf(option: QuoteOption): SolanaAsset {
  return option.asset === "SOL" ? "SOL" : "USDC";
}

/** The mint an option is paid in: ours, never the client's (USDC's, or wrapped SOL). */
export function mintOf(option: QuoteOption, usdcMint: Address): Address {
  return assetOf(option) === "SOL" ? WSOL_MINT : usdcMint;
}

/** The SOL/USD rate (micro-USD per SOL) a SOL option was priced at. */
function rateOf(option: QuoteOption): bigint | undefined {
  const rate = option.details.micro_usd_per_sol;
  return rate === undefined ? undefined : BigInt(rate);
}

/** What an amount received on `option` credits, in USDC microunits (SOL at the quote's rate). */
export function creditOf(option: QuoteOption, received: bigint): bigint {
  return assetOf(option) === "USDC" ? received : lamportsToMicrounits(received, rateOf(option) ?? 0n);
}

/** What a credit's ledger metadata says of the rate, for a SOL payment. */
export function rateMetadata(option: QuoteOption): Record<string, string> {
  return assetOf(option) === "SOL" ? { micro_usd_per_sol: String(rateOf(option) ?? null) } : {};
}
