import type { StoredQuote } from "./quote-store";

/** The option rows the Solana rail writes: self-broadcast transfers and co-signed `exact` payments. */
export const SOLANA_NATIVE_RAIL = "solana-native";
export const SOLANA_EXACT_RAIL = "solana-exact";

/**
 * What a quote asks on Solana, read back from its option rows: the native USDC amount (the
 * cap), the native SOL amount and the SOL/USD rate it was priced at, the co-signed amounts
 * and the fee payer they name. Undefined when the quote offered nothing on Solana.
 */
export interface SolanaTerms {
  network: string;
  payTo: string;
  usdcMicrounits: bigint;
  capLamports: bigint | null;
  microUsdPerSol: bigint | null;
  standardMicrounits: bigint | null;
  standardLamports: bigint | null;
  feePayer: string | null;
}

export function solanaTermsOf(quote: StoredQuote): SolanaTerms | undefined {
  const find = (rail: string, asset: string) =>
    quote.options.find((option) => option.rail === rail && option.asset === asset);
  const usdc = find(SOLANA_NATIVE_RAIL, "USDC");
  if (!usdc) return undefined;
  const sol = find(SOLANA_NATIVE_RAIL, "SOL");
  const standardUsdc = find(SOLANA_EXACT_RAIL, "USDC");
  const standardSol = find(SOLANA_EXACT_RAIL, "SOL");
  const rate = sol?.details.micro_usd_per_sol ?? standardSol?.details.micro_usd_per_sol;
  return {
    network: usdc.network,
    payTo: usdc.payTo,
    usdcMicrounits: usdc.amount,
    capLamports: sol?.amount ?? null,
    microUsdPerSol: rate === undefined ? null : BigInt(rate),
    standardMicrounits: standardUsdc?.amount ?? null,
    standardLamports: standardSol?.amount ?? null,
    feePayer: standardUsdc?.details.fee_payer ?? standardSol?.details.fee_payer ?? null,
  };
}
