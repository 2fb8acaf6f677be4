/**
 * How many lamports an account gained (negative: lost) in a transaction, from the validator's
 * pre/post balances at the account's index (-1, an account not in the transaction: 0).
 */
export function lamportDelta(
  pre: readonly (bigint | number)[],
  post: readonly (bigint | number)[],
  index: number,
): bigint {
  if (index < 0) return 0n;
  return BigInt(post[index] ?? 0n) - BigInt(pre[index] ?? 0n);
}
