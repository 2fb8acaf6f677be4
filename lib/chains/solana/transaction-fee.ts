import { readComputeBudget } from "./compute-budget";
import type { PaymentCompiledMessage } from "./decode-transaction";

/** Base fee per required signature (unchanged on mainnet since launch). */
const LAMPORTS_PER_SIGNATURE = 5_000n;

/**
 * The lamports a transaction charges its fee payer: 5,000 per required signature plus
 * the priority fee ceil(unit limit × unit price / 1e6). This is what sponsoring a
 * co-signed payment costs us, whether it succeeds or fails on-chain.
 */
export function computeTransactionFee(message: PaymentCompiledMessage): bigint {
  const budget = readComputeBudget(message);
  const baseFee = LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts);
  const price = budget.unitPriceMicroLamports ?? 0n;
  const priorityFee = (BigInt(budget.effectiveUnitLimit) * price + 999_999n) / 1_000_000n;
  return baseFee + priorityFee;
}
