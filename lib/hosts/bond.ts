import type { Env } from "../env";

/** Every provider posts a 50 USDC bond, held while it operates. */
export const bondAmountMicrounits = 50_000_000n;

/** The bond instructions a host sees: the code binds the deposit to its bond, not to a token balance. */
export function bondView(env: Env, depositCode: string) {
  return {
    deposit_code: depositCode,
    amount_usdc: Number(bondAmountMicrounits / 1_000_000n),
    amount_microunits: Number(bondAmountMicrounits),
    // null while on-chain deposits are off: the bond then needs an operator's activation.
    destination: env.SOLANA_DEPOSIT_ADDRESS ?? null,
    memo: depositCode,
  };
}
