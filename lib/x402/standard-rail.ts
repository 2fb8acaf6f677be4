import type { Address } from "@solana/kit";
import { WSOL_MINT } from "../chains/solana/constants";
import type { PaymentAsset } from "./payment-claims";
import type { StoredQuote } from "./quote-store";

/** One standard-scheme option of a quote: which mint, and exactly how many base units. */
export interface StandardRail {
  asset: PaymentAsset;
  mint: Address;
  amount: bigint;
}

/**
 * The rail a standard payment uses, from the mint the client chose or the ticker a claim
 * recorded; undefined when the quote did not offer it. Mints are ours, never the client's.
 */
export function standardRailOf(
  assetOrMint: string,
  quote: StoredQuote,
  usdcMint: Address,
): StandardRail | undefined {
  if (assetOrMint === usdcMint || assetOrMint === "USDC") {
    return { asset: "USDC", mint: usdcMint, amount: quote.standardMicrounits };
  }
  if ((assetOrMint === WSOL_MINT || assetOrMint === "SOL") && quote.standardLamports !== null) {
    return { asset: "SOL", mint: WSOL_MINT, amount: quote.standardLamports };
  }
  return undefined;
}
