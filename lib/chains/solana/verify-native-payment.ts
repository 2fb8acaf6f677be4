import {
  type Address,
  type GetTransactionApi,
  isAddress,
  isSignature,
  type Rpc,
  type TokenBalance,
} from "@solana/kit";
import { lamportDelta } from "./lamport-delta";

/**
 * On-chain verification of a self-broadcast payment (the Use Pod "native" dialect):
 * the client sends USDC or SOL to `pay_to` itself and hands us the signature.
 *
 * Only balance deltas are trusted, never instruction amounts: the credit is what
 * `pay_to` actually gained in the confirmed transaction (token balance of its USDC
 * accounts, or its lamports), which also covers fee-on-transfer mints and CPI paths.
 *
 * @see x402-protocol.md §7.6 (rules) and reference-service.md §8.5
 */

const NATIVE_PAYMENT_REJECTIONS = {
  invalidSignature: "invalid_signature",
  invalidPayerWallet: "invalid_payer_wallet",
  transactionFailed: "transaction_failed",
  metaMissing: "transaction_meta_missing",
  blockTimeMissing: "block_time_missing",
  transferTooOld: "transfer_too_old",
  transferTooLate: "transfer_too_late",
  payToIsSigner: "pay_to_is_signer",
  payerNotSigner: "payer_not_signer",
  payToNotCredited: "pay_to_not_credited",
  payerNotDebited: "payer_not_debited",
  underpaid: "underpaid",
} as const;

type NativePaymentRejection = (typeof NATIVE_PAYMENT_REJECTIONS)[keyof typeof NATIVE_PAYMENT_REJECTIONS];

export const NATIVE_PAYMENT_NOT_FOUND_MESSAGE = "Solana transaction not found or not yet confirmed";

export type VerifyNativePaymentResult =
  | { type: "verified"; received: bigint; blockTime: Date; slot: bigint; feePayer: Address }
  | { type: "not_found"; message: string }
  | { type: "rejected"; reason: NativePaymentRejection; message: string };

interface NativePaymentCommon {
  signature: string;
  payTo: Address;
  /** From the client payload: validated here, never trusted. */
  payerWallet: string;
  /** Atomic units: USDC microunits or lamports. */
  minAmount: bigint;
  /** Quote issue time: transfers before it (minus skew) could be older deposits. */
  notBefore: Date;
  /** Quote expiry. */
  notAfter: Date;
  /** Tolerated clock difference before `notBefore` (default 30 s). */
  clockSkewSeconds?: number;
  /** Tolerated landing delay after `notAfter` (default 60 s). */
  graceSeconds?: number;
}

export type VerifyNativePaymentInput =
  | (NativePaymentCommon & { asset: "USDC"; usdcMint: Address })
  | (NativePaymentCommon & { asset: "SOL"; usdcMint?: Address });

const DEFAULT_CLOCK_SKEW_SECONDS = 30;
const DEFAULT_GRACE_SECONDS = 60;

/**
 * Reads the transaction at `confirmed` and decides whether it pays `minAmount` to
 * `payTo` from `payerWallet` inside the quote window. Throws only for transport/RPC
 * failures (the caller should answer "retry later", not "rejected").
 */
export async function verifyNativePayment(
  rpc: Rpc<GetTransactionApi>,
  input: VerifyNativePaymentInput,
): Promise<VerifyNativePaymentResult> {
  const signature = input.signature.trim();
  if (!isSignature(signature)) {
    return reject("invalid_signature", "signature is not a base58 Solana transaction signature");
  }
  if (!isAddress(input.payerWallet)) {
    return reject("invalid_payer_wallet", "payer_wallet is not a valid Solana address");
  }
  const payerWallet = input.payerWallet;

  const response = await rpc
    .getTransaction(signature, {
      commitment: "confirmed",
      encoding: "json",
      maxSupportedTransactionVersion: 0,
    })
    .send();
  if (response === null) return { type: "not_found", message: NATIVE_PAYMENT_NOT_FOUND_MESSAGE };
  const meta = response.meta;
  if (meta === null) return reject("transaction_meta_missing", "transaction has no status metadata");
  if (meta.err !== null)
    return reject("transaction_failed", "transaction failed on-chain; nothing was transferred");

  if (response.blockTime === null) return reject("block_time_missing", "transaction has no block time yet");
  const blockTimeSeconds = Number(response.blockTime);
  const earliest =
    Math.floor(input.notBefore.getTime() / 1000) - (input.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS);
  const latest = Math.ceil(input.notAfter.getTime() / 1000) + (input.graceSeconds ?? DEFAULT_GRACE_SECONDS);
  if (blockTimeSeconds < earliest) {
    return reject("transfer_too_old", "transaction landed before this quote was issued");
  }
  if (blockTimeSeconds > latest)
    return reject("transfer_too_late", "transaction landed after this quote expired");

  const message = response.transaction.message;
  // v0 balances are indexed over static keys, then loaded writable, then loaded readonly.
  const accountKeys: readonly Address[] = [
    ...message.accountKeys,
    ...(meta.loadedAddresses?.writable ?? []),
    ...(meta.loadedAddresses?.readonly ?? []),
  ];
  const signers = message.accountKeys.slice(0, message.header.numRequiredSignatures);
  const feePayer = message.accountKeys[0];
  if (feePayer === undefined) return reject("transaction_meta_missing", "transaction has no accounts");
  if (signers.includes(input.payTo)) {
    return reject("pay_to_is_signer", "pay_to signed this transaction; it cannot be a payment to pay_to");
  }
  if (!signers.includes(payerWallet)) {
    return reject("payer_not_signer", "payer_wallet did not sign this transaction");
  }

  let received: bigint;
  let payerDebited: boolean;
  if (input.asset === "USDC") {
    const pre = meta.preTokenBalances ?? [];
    const post = meta.postTokenBalances ?? [];
    received = tokenDelta(pre, post, input.usdcMint, input.payTo);
    payerDebited = tokenDelta(pre, post, input.usdcMint, payerWallet) < 0n;
  } else {
    received = lamportDelta(meta.preBalances, meta.postBalances, accountKeys.indexOf(input.payTo));
    const payerIndex = accountKeys.indexOf(payerWallet);
    // The fee is a debit too; only lamports that left beyond the fee count as paying.
    const fee = payerIndex === 0 ? BigInt(meta.fee) : 0n;
    payerDebited = -lamportDelta(meta.preBalances, meta.postBalances, payerIndex) - fee > 0n;
  }

  if (received <= 0n) return reject("pay_to_not_credited", "this transaction did not credit pay_to");
  if (!payerDebited) return reject("payer_not_debited", "payer_wallet was not debited by this transaction");
  if (received < input.minAmount) {
    return reject("underpaid", `pay_to received ${received}, the quote requires at least ${input.minAmount}`);
  }
  return {
    type: "verified",
    received,
    blockTime: new Date(blockTimeSeconds * 1000),
    slot: BigInt(response.slot),
    feePayer,
  };
}

function reject(reason: NativePaymentRejection, message: string): VerifyNativePaymentResult {
  return { type: "rejected", reason, message };
}

/**
 * Net change of `owner`'s token accounts for `mint`. An existing account handed to
 * `owner` with SetAuthority inside the transaction is skipped: its balance moved to
 * nobody, so it is not a transfer. Accounts created in the transaction (no pre entry)
 * and accounts closed in it (no post entry) count from/to zero.
 */
function tokenDelta(
  pre: readonly TokenBalance[],
  post: readonly TokenBalance[],
  mint: Address,
  owner: Address,
): bigint {
  const held = (balance: TokenBalance | undefined): balance is TokenBalance =>
    balance !== undefined && balance.mint === mint && balance.owner === owner;
  const indexes = new Set([...pre, ...post].map((balance) => balance.accountIndex));
  let delta = 0n;
  for (const index of indexes) {
    const before = pre.find((balance) => balance.accountIndex === index);
    const after = post.find((balance) => balance.accountIndex === index);
    if (held(after) && before !== undefined && !held(before)) continue;
    delta +=
      (held(after) ? parseAmount(after.uiTokenAmount.amount) : 0n) -
      (held(before) ? parseAmount(before.uiTokenAmount.amount) : 0n);
  }
  return delta;
}

function parseAmount(amount: string): bigint {
  return /^\d+$/.test(amount) ? BigInt(amount) : 0n;
}
