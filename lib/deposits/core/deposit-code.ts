/**
 * The code a deposit carries in its Memo. A token's `deposit_code` is 16 lowercase hex
 * characters (`/v1/register`); a provider bond's is `POD-BOND-` plus 8 characters
 * (`/v1/host/enroll`). The code only says whose deposit it is; it authorizes nothing.
 */
export type DepositCode = { kind: "token"; code: string } | { kind: "bond"; code: string };

/** Why a deposit could not be credited to anyone: it waits in suspense for an operator. */
export type UnmatchedReason =
  | "no_memo"
  | "invalid_code"
  | "ambiguous_code"
  | "unknown_code"
  | "host_retired"
  | "other_asset"
  | "zero_amount"
  /** The transaction settled an x402 quote: paid for inference already, never a deposit too. */
  | "x402_payment";

const tokenCodePattern = /^[0-9a-f]{16}$/i;
const bondCodePattern = /^POD-BOND-[A-HJ-NP-Z2-9]{8}$/i;

function parseOne(memo: string): DepositCode | undefined {
  const text = memo.trim();
  if (tokenCodePattern.test(text)) return { kind: "token", code: text.toLowerCase() };
  if (bondCodePattern.test(text)) return { kind: "bond", code: text.toUpperCase() };
  return undefined;
}

/**
 * The one code among a transaction's memos. Wallets may add memos of their own, so text that
 * is not a code is skipped; two different codes in one transaction bind it to nobody.
 */
export function parseDepositCode(memos: readonly string[]): DepositCode | { reason: UnmatchedReason } {
  if (memos.length === 0) return { reason: "no_memo" };
  const codes = new Map<string, DepositCode>();
  for (const memo of memos) {
    const code = parseOne(memo);
    if (code) codes.set(`${code.kind}:${code.code}`, code);
  }
  const [first, ...rest] = [...codes.values()];
  if (!first) return { reason: "invalid_code" };
  if (rest.length > 0) return { reason: "ambiguous_code" };
  return first;
}
