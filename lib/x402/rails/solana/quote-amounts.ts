import { LAMPORTS_PER_SOL } from "../../../chains/solana/constants";
import { usdToLamports } from "../../../chains/solana/sol-price";
import { MINIMUM_CAP_MICROUNITS, SPONSORED_MINIMUM_MICROUNITS } from "../../core/quote-floors";

/**
 * The amounts one quote asks for, all integers. The USDC cap is the request's worst-case
 * cost; the SOL amounts carry the same dollars at the quote's SOL/USD rate, rounded up so
 * a full payment is always worth at least the cap.
 */

export interface QuoteAmounts {
  capMicrounits: bigint;
  standardMicrounits: bigint;
  /** Undefined when no SOL/USD rate was available: the quote then offers USDC only. */
  sol?: { microUsdPerSol: bigint; capLamports: bigint; standardLamports: bigint };
}

export function quoteAmounts(worstCaseMicrounits: bigint, microUsdPerSol: bigint | undefined): QuoteAmounts {
  const capMicrounits =
    worstCaseMicrounits > MINIMUM_CAP_MICROUNITS ? worstCaseMicrounits : MINIMUM_CAP_MICROUNITS;
  // We pay the network fee of a co-signed entry: it asks at least the sponsored minimum.
  let standardMicrounits = capMicrounits;
  if (standardMicrounits < SPONSORED_MINIMUM_MICROUNITS) standardMicrounits = SPONSORED_MINIMUM_MICROUNITS;
  if (microUsdPerSol === undefined || microUsdPerSol <= 0n) return { capMicrounits, standardMicrounits };
  return {
    capMicrounits,
    standardMicrounits,
    sol: {
      microUsdPerSol,
      capLamports: usdToLamports(capMicrounits, microUsdPerSol),
      standardLamports: usdToLamports(standardMicrounits, microUsdPerSol),
    },
  };
}

/**
 * What `lamports` received on the SOL rail credit, in USDC microunits: their value at the
 * quote's rate, rounded down. Because the quoted lamports were rounded up from the cap, a
 * payment of the full SOL amount always credits at least the cap; an overpayment is
 * credited at the same rate (the rate is fixed for the quote's five minutes).
 */
export function lamportsToMicrounits(lamports: bigint, microUsdPerSol: bigint): bigint {
  if (lamports <= 0n) return 0n;
  return (lamports * microUsdPerSol) / LAMPORTS_PER_SOL;
}
