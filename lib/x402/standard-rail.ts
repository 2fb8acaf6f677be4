import type { Address } from "@solana/kit";
import { WSOL_MINT } from "../chains/solana/constants";
import type { PaymentAsset } from "./payment-claims";
import type { SolanaTerms } from "./solana-terms";

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
  terms: SolanaTerms,
  usdcMint: Address,
): StandardRail | undefined {
  if ((assetOrMint === usdcMint || assetOrMint === "USDC") && terms.standardMicrounits !== null) {
    return { asset: "USDC", mint: usdcMint, amount: terms.standardMicrounits };
  }
  if ((assetOrMint === WSOL_MINT || assetOrMint === "SOL") && terms.standardLamports !== null) {
    return { asset: "SOL", mint: WSOL_MINT, amount: terms.standardLamports };
  }
  return undefined;
}
