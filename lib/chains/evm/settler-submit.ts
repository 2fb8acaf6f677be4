import {
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  type PublicClient,
  type WalletClient,
} from "viem";
import type { Submission } from "./authorized-transfer";
import { eip3009Abi, type TransferAuthorization } from "./eip3009";

/** The gateway's own settler submits the authorization: simulated first, so a refusal costs no gas. */
export function settlerSubmitter(input: {
  publicClient: Pick<PublicClient, "simulateContract">;
  wallet: WalletClient;
  chain: Chain;
  settler: Address;
  token: Address;
  authorization: TransferAuthorization;
}): () => Promise<Submission> {
  const { authorization, wallet } = input;
  return async () => {
    try {
      const { request } = await input.publicClient.simulateContract({
        account: wallet.account ?? input.settler,
        address: input.token,
        abi: eip3009Abi,
        functionName: "transferWithAuthorization",
        args: [
          authorization.from,
          authorization.to,
          authorization.value,
          authorization.validAfter,
          authorization.validBefore,
          authorization.nonce,
          authorization.signature,
        ],
      });
      const hash = await wallet.writeContract({
        ...request,
        account: wallet.account ?? null,
        chain: input.chain,
      });
      return { type: "submitted", hash };
    } catch (error) {
      const reverted = revertReasonOf(error);
      if (reverted) return { type: "refused", ...reverted };
      // Not sent: the authorization is still unused, and a lost answer is found on-chain later.
      return {
        type: "refused",
        reason: "submission_failed",
        message: "the transfer could not be submitted",
        cause: error,
      };
    }
  };
}

const revertReasons: [RegExp, string][] = [
  [/exceeds balance/i, "insufficient_funds"],
  [/authorization is used or canceled/i, "nonce_already_used"],
  [/authorization is expired/i, "valid_before"],
  [/authorization is not yet valid/i, "valid_after"],
  [/invalid signature/i, "invalid_signature"],
  [/blacklisted/i, "blacklisted"],
  [/paused/i, "token_paused"],
];

/** A refusal by the token contract (seen in simulation), as a reason code; undefined for anything else. */
function revertReasonOf(error: unknown): { reason: string; message: string } | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  const message = reverted.reason ?? reverted.shortMessage;
  const known = revertReasons.find(([pattern]) => pattern.test(message));
  return { reason: known?.[1] ?? "transaction_simulation_failed", message };
}
