import {
  type Base64EncodedWireTransaction,
  blockhash,
  type GetSignatureStatusesApi,
  getBase64EncodedWireTransaction,
  type IsBlockhashValidApi,
  isSolanaError,
  type Rpc,
  type SendTransactionApi,
  type Signature,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
} from "@solana/kit";
import { decodeBase64Transaction, transactionSignature } from "./decode-transaction";

/**
 * Broadcasting a fully signed transaction without ever paying twice for one payment:
 * the signature is known before sending, the chain is asked first, and the outcome is
 * reported in terms a claim table can act on (final or not, landed or not).
 */

export type BroadcastRpc = Rpc<SendTransactionApi & GetSignatureStatusesApi & IsBlockhashValidApi>;

export type SignatureStatusResult =
  | { type: "confirmed"; slot: bigint; commitment: "confirmed" | "finalized" }
  /** Landed and failed: the fee was paid, the transfer did not happen. Final. */
  | { type: "failed"; slot: bigint; error: string }
  /** Seen by the cluster but not yet confirmed; may still be dropped. */
  | { type: "processed"; slot: bigint }
  | { type: "not_found" };

/** One status lookup, searching history so old signatures are found too. */
export async function getSignatureStatus(
  rpc: BroadcastRpc,
  signature: Signature,
): Promise<SignatureStatusResult> {
  const { value } = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
  const status = value[0];
  if (!status) return { type: "not_found" };
  if (status.err !== null) {
    return { type: "failed", slot: BigInt(status.slot), error: stringifyError(status.err) };
  }
  if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized") {
    return { type: "confirmed", slot: BigInt(status.slot), commitment: status.confirmationStatus };
  }
  return { type: "processed", slot: BigInt(status.slot) };
}

export type BroadcastResult =
  | { type: "confirmed"; signature: Signature; slot: bigint }
  /** Landed and failed on-chain (fee spent, no transfer). Final: release the claim. */
  | { type: "failed"; signature: Signature; slot: bigint; error: string }
  /**
   * The RPC refused it in preflight, so this send did not forward it. Final unless the
   * same bytes were sent earlier by another attempt: reconcile after blockhash expiry.
   */
  | { type: "rejected"; signature: Signature; message: string }
  /** Blockhash expired and the signature is unknown: it can never land. Final. */
  | { type: "expired"; signature: Signature }
  /** Outcome unknown within the time budget: keep the claim, reconcile later. */
  | { type: "pending"; signature: Signature };

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_POLL_INTERVAL_MS = 400;

export interface BroadcastOptions {
  timeoutMs?: number;
  pollIntervalMs?: number;
}

/**
 * Sends `signedTransactionBase64` unless the chain already knows its signature, then
 * polls until it is confirmed, failed, expired or the time budget runs out.
 */
export async function broadcastAndConfirm(
  rpc: BroadcastRpc,
  signedTransactionBase64: string,
  options: BroadcastOptions = {},
): Promise<BroadcastResult> {
  const { transaction, message } = decodeBase64Transaction(signedTransactionBase64);
  const signature = transactionSignature(transaction);
  const wire: Base64EncodedWireTransaction = getBase64EncodedWireTransaction(transaction);
  const startedAt = Date.now();

  const known = await getSignatureStatus(rpc, signature);
  const settled = finalResult(signature, known);
  if (settled) return settled;
  if (known.type === "not_found") {
    try {
      await rpc.sendTransaction(wire, { encoding: "base64", preflightCommitment: "confirmed" }).send();
    } catch (error) {
      // A refusal by the node is definite; anything else (timeout, socket) leaves the
      // outcome unknown, so fall through to polling. "Already processed" means some
      // earlier attempt landed it: poll for that result.
      if (isRefusal(error) && !isAlreadyProcessed(error)) {
        const recheck = await getSignatureStatus(rpc, signature);
        if (recheck.type === "not_found") {
          return { type: "rejected", signature, message: describeSendError(error) };
        }
      }
    }
  }
  const remainingMs = (options.timeoutMs ?? DEFAULT_TIMEOUT_MS) - (Date.now() - startedAt);
  return waitForConfirmation(rpc, signature, {
    blockhash: message.lifetimeToken,
    timeoutMs: Math.max(remainingMs, 0),
    pollIntervalMs: options.pollIntervalMs,
  });
}

export type ConfirmationResult = Exclude<BroadcastResult, { type: "rejected" }>;

/**
 * Polls a broadcast signature until it is confirmed or failed. When `blockhash` is
 * known, a signature still unseen after that blockhash expired is reported `expired`
 * (it can never land); without it, or before expiry, the budget ends in `pending`.
 */
export async function waitForConfirmation(
  rpc: BroadcastRpc,
  signature: Signature,
  options: BroadcastOptions & { blockhash?: string } = {},
): Promise<ConfirmationResult> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  for (;;) {
    const status = await getSignatureStatus(rpc, signature);
    const result = finalResult(signature, status);
    if (result) return result;
    if (status.type === "not_found" && options.blockhash !== undefined) {
      const { value: valid } = await rpc
        .isBlockhashValid(blockhash(options.blockhash), { commitment: "confirmed" })
        .send();
      if (!valid) {
        // It may have landed in the last valid slot: look once more before giving up.
        const last = await getSignatureStatus(rpc, signature);
        if (last.type === "not_found") return { type: "expired", signature };
        return finalResult(signature, last) ?? { type: "pending", signature };
      }
    }
    if (Date.now() + pollIntervalMs > deadline) return { type: "pending", signature };
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}

function finalResult(
  signature: Signature,
  status: SignatureStatusResult,
): Extract<ConfirmationResult, { type: "confirmed" | "failed" }> | undefined {
  if (status.type === "confirmed") return { type: "confirmed", signature, slot: status.slot };
  if (status.type === "failed") return { type: "failed", signature, slot: status.slot, error: status.error };
  return undefined;
}

function isRefusal(error: unknown): boolean {
  return (
    isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE) ||
    isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE) ||
    isSolanaError(error, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)
  );
}

function isAlreadyProcessed(error: unknown): boolean {
  return (
    error instanceof Error && isSolanaError(error.cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)
  );
}

function describeSendError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

function stringifyError(error: unknown): string {
  return JSON.stringify(error, (_key, value: unknown) =>
    typeof value === "bigint" ? value.toString() : value,
  );
}
