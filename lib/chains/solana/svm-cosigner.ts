import { type Address, createSolanaRpc, isAddress, type KeyPairSigner, type Signature } from "@solana/kit";
import { type PendingSettlementStore, x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import type { SolanaNetwork } from "./constants";
import { createRpcFacilitatorSigner } from "./facilitator-signer";
import {
  DEFAULT_PRECHECK_LIMITS,
  type PreCheckRejection,
  preCheckStandardTransaction,
  type StandardTransactionExpectations,
} from "./standard-transaction-precheck";
import {
  type BroadcastOptions,
  type BroadcastResult,
  broadcastAndConfirm,
  getSignatureStatus,
  type SignatureStatusResult,
} from "./transaction-broadcast";

/**
 * The fee-payer co-signer for standard x402 `exact` SVM payments: @x402/svm's
 * facilitator scheme (layout, signatures, simulation, confirmation, duplicate cache)
 * behind our stricter pre-check, which runs before any signature is made.
 *
 * Two ways to settle:
 * - `settle()`: the library signs, sends and confirms in one call (in-memory dedup only);
 * - `cosignAndPredictSignature()` → write a DB claim keyed by the signature →
 *   `broadcastAndConfirm()`, with `getSignatureStatus()` for crash recovery. This is the
 *   path that survives restarts and multiple instances without ever paying twice.
 *
 * Always pass OUR quote's requirements, never `payload.accepted`.
 */

const COSIGNER_REJECTIONS = {
  unsupportedScheme: "unsupported_scheme",
  invalidNetwork: "invalid_network",
  invalidRequirements: "invalid_payment_requirements",
  invalidPayload: "invalid_payload",
  feePayerNotManaged: "fee_payer_not_managed",
} as const;

type CosignerRejection = (typeof COSIGNER_REJECTIONS)[keyof typeof COSIGNER_REJECTIONS] | PreCheckRejection;

interface SvmCosignerLimits {
  maxComputeUnits: number;
  maxPriorityFeeMicroLamports: number;
  maxRequiredSignatures: number;
}

export interface SvmCosignerOptions {
  rpcUrl: string;
  feePayer: KeyPairSigner;
  network: SolanaNetwork;
  limits?: Partial<SvmCosignerLimits>;
  /** Budget for one confirmation wait (default 30 s). */
  confirmTimeoutMs?: number;
  pollIntervalMs?: number;
  /** Share one (DB-backed) store across instances so a settle retry reconciles. */
  pendingSettlementStore?: PendingSettlementStore;
}

type CosignResult =
  | { type: "cosigned"; signedTransaction: string; signature: Signature; payer: Address; amount: bigint }
  | { type: "rejected"; reason: CosignerRejection; message: string };

export interface SvmCosigner {
  readonly feePayer: Address;
  readonly network: SolanaNetwork;
  /** The `/supported` kind; its `extra.feePayer` goes into our PAYMENT-REQUIRED entries. */
  supportedKind(): { x402Version: 2; scheme: "exact"; network: SolanaNetwork; extra: { feePayer: Address } };
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
  /** Pre-checks, then adds the fee-payer signature without sending. Call `verify` first. */
  cosignAndPredictSignature(
    transactionBase64: string,
    requirements: PaymentRequirements,
  ): Promise<CosignResult>;
  broadcastAndConfirm(signedTransactionBase64: string, options?: BroadcastOptions): Promise<BroadcastResult>;
  getSignatureStatus(signature: Signature): Promise<SignatureStatusResult>;
}

export function createSvmCosigner(options: SvmCosignerOptions): SvmCosigner {
  const limits: SvmCosignerLimits = {
    maxComputeUnits: options.limits?.maxComputeUnits ?? DEFAULT_PRECHECK_LIMITS.maxComputeUnits,
    maxPriorityFeeMicroLamports:
      options.limits?.maxPriorityFeeMicroLamports ??
      Number(DEFAULT_PRECHECK_LIMITS.maxPriorityFeeMicroLamports),
    maxRequiredSignatures: options.limits?.maxRequiredSignatures ?? DEFAULT_PRECHECK_LIMITS.maxSignatures,
  };
  const rpc = createSolanaRpc(options.rpcUrl);
  const feePayer = options.feePayer.address;
  const network = options.network;
  const signer = createRpcFacilitatorSigner({
    rpc,
    feePayer: options.feePayer,
    confirmTimeoutMs: options.confirmTimeoutMs,
    pollIntervalMs: options.pollIntervalMs,
  });
  const facilitator = new x402Facilitator().register(
    network,
    new ExactSvmScheme(signer, undefined, {
      ...limits,
      pendingSettlementStore: options.pendingSettlementStore,
    }),
  );

  const preCheck = async (
    transaction: unknown,
    requirements: PaymentRequirements,
  ): Promise<
    | { type: "rejected"; reason: CosignerRejection; message: string }
    | { type: "ok"; payer: Address; amount: bigint }
  > => {
    const expectations = expectationsFor(requirements, { feePayer, network, limits });
    if ("reason" in expectations) return { type: "rejected", ...expectations };
    if (typeof transaction !== "string") {
      return {
        type: "rejected",
        reason: "invalid_payload",
        message: "payload.transaction must be a base64 string",
      };
    }
    return preCheckStandardTransaction(transaction, expectations);
  };

  return {
    feePayer,
    network,
    supportedKind: () => ({ x402Version: 2, scheme: "exact", network, extra: { feePayer } }),
    async verify(payload, requirements) {
      const checked = await preCheck(payload.payload.transaction, requirements);
      if (checked.type === "rejected") {
        return { isValid: false, invalidReason: checked.reason, invalidMessage: checked.message, payer: "" };
      }
      try {
        return await facilitator.verify(payload, requirements);
      } catch (error) {
        return {
          isValid: false,
          invalidReason: "unexpected_verify_error",
          invalidMessage: messageOf(error),
          payer: "",
        };
      }
    },
    async settle(payload, requirements) {
      const checked = await preCheck(payload.payload.transaction, requirements);
      if (checked.type === "rejected") {
        return {
          success: false,
          errorReason: checked.reason,
          errorMessage: checked.message,
          transaction: "",
          network,
        };
      }
      try {
        return await facilitator.settle(payload, requirements);
      } catch (error) {
        // The scheme catches send/confirm failures itself, so a throw here is pre-broadcast.
        const reason = "unexpected_settle_error";
        return {
          success: false,
          errorReason: reason,
          errorMessage: messageOf(error),
          transaction: "",
          network,
        };
      }
    },
    async cosignAndPredictSignature(transactionBase64, requirements) {
      const checked = await preCheck(transactionBase64, requirements);
      if (checked.type === "rejected") return checked;
      const { signedTransaction, signature } = await signer.cosign(transactionBase64);
      return { type: "cosigned", signedTransaction, signature, payer: checked.payer, amount: checked.amount };
    },
    broadcastAndConfirm: (signedTransactionBase64, broadcastOptions) =>
      broadcastAndConfirm(rpc, signedTransactionBase64, {
        timeoutMs: broadcastOptions?.timeoutMs ?? options.confirmTimeoutMs,
        pollIntervalMs: broadcastOptions?.pollIntervalMs ?? options.pollIntervalMs,
      }),
    getSignatureStatus: (signature) => getSignatureStatus(rpc, signature),
  };
}

/** Our quote's requirements → pre-check expectations, refusing anything we did not issue. */
function expectationsFor(
  requirements: PaymentRequirements,
  context: { feePayer: Address; network: SolanaNetwork; limits: SvmCosignerLimits },
): StandardTransactionExpectations | { reason: CosignerRejection; message: string } {
  if (requirements.scheme !== "exact") return { reason: "unsupported_scheme", message: "only scheme exact" };
  if (requirements.network !== context.network) {
    return { reason: "invalid_network", message: `this co-signer serves ${context.network}` };
  }
  if (requirements.extra.feePayer !== context.feePayer) {
    return { reason: "fee_payer_not_managed", message: "extra.feePayer is not this co-signer's key" };
  }
  const { asset, payTo, amount } = requirements;
  if (!isAddress(asset) || !isAddress(payTo) || !/^\d+$/.test(amount)) {
    return { reason: "invalid_payment_requirements", message: "asset, payTo or amount is malformed" };
  }
  const memo = requirements.extra.memo;
  return {
    feePayer: context.feePayer,
    payTo,
    mint: asset,
    amount: BigInt(amount),
    memo: typeof memo === "string" && memo.length > 0 ? memo : undefined,
    maxComputeUnits: context.limits.maxComputeUnits,
    maxPriorityFeeMicroLamports: BigInt(context.limits.maxPriorityFeeMicroLamports),
    maxSignatures: context.limits.maxRequiredSignatures,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
