import {
  type Address,
  getBase64EncodedWireTransaction,
  type KeyPairSigner,
  partiallySignTransaction,
  type Rpc,
  type Signature,
  type SimulateTransactionApi,
  signature as toSignature,
} from "@solana/kit";
import { type FacilitatorSvmSigner, TransactionOnchainFailureError } from "@x402/svm";
import { decodeBase64Transaction, transactionSignature } from "./decode-transaction";
import { type BroadcastRpc, waitForConfirmation } from "./transaction-broadcast";

/**
 * Our implementation of @x402/svm's FacilitatorSvmSigner over a kit RPC. We own it
 * (instead of `toFacilitatorSvmSigner`) to keep preflight on when sending (a failing
 * transaction is refused for free instead of landing and charging our fee payer), to
 * bound confirmation time, and to expose the deterministic co-signed signature.
 */

export type FacilitatorRpc = BroadcastRpc & Rpc<SimulateTransactionApi>;

interface CosignedTransaction {
  /** Base64 wire transaction carrying every signature. */
  signedTransaction: string;
  /** The transaction id (fee payer's signature): Ed25519 is deterministic, so it is known before sending. */
  signature: Signature;
}

export interface RpcFacilitatorSigner extends FacilitatorSvmSigner {
  /** Adds the fee payer's signature; throws if account 0 is not our fee payer. */
  cosign(transactionBase64: string): Promise<CosignedTransaction>;
}

export function createRpcFacilitatorSigner(options: {
  rpc: FacilitatorRpc;
  feePayer: KeyPairSigner;
  confirmTimeoutMs?: number;
  pollIntervalMs?: number;
}): RpcFacilitatorSigner {
  const { rpc, feePayer } = options;
  /** Blockhash of each transaction we sent, so confirmation can detect expiry. */
  const sentBlockhashes = new Map<string, string>();

  const cosign = async (transactionBase64: string): Promise<CosignedTransaction> => {
    const { transaction, message } = decodeBase64Transaction(transactionBase64);
    if (message.staticAccounts[0] !== feePayer.address) {
      throw new Error(`fee payer of this transaction is not ${feePayer.address}`);
    }
    const signed = await partiallySignTransaction([feePayer.keyPair], transaction);
    return {
      signedTransaction: getBase64EncodedWireTransaction(signed),
      signature: transactionSignature(signed),
    };
  };

  return {
    cosign,
    getAddresses: () => [feePayer.address],
    async signTransaction(transaction: string, requestedFeePayer: Address) {
      if (requestedFeePayer !== feePayer.address)
        throw new Error(`no signer for fee payer ${requestedFeePayer}`);
      return (await cosign(transaction)).signedTransaction;
    },
    async simulateTransaction(transaction, _network, simulateOptions) {
      const wire = getBase64EncodedWireTransaction(decodeBase64Transaction(transaction).transaction);
      const config = simulateOptions?.replaceRecentBlockhash
        ? ({
            encoding: "base64",
            replaceRecentBlockhash: true,
            sigVerify: false,
            commitment: "confirmed",
          } as const)
        : ({
            encoding: "base64",
            sigVerify: simulateOptions?.sigVerify ?? false,
            commitment: "confirmed",
          } as const);
      const { value } = await rpc.simulateTransaction(wire, config).send();
      if (value.err !== null) throw new Error(`Simulation failed: ${stringify(value.err)}`);
    },
    async sendTransaction(transaction) {
      const { transaction: decoded, message } = decodeBase64Transaction(transaction);
      const signature = await rpc
        .sendTransaction(getBase64EncodedWireTransaction(decoded), {
          encoding: "base64",
          preflightCommitment: "confirmed",
        })
        .send();
      sentBlockhashes.set(signature, message.lifetimeToken);
      return signature;
    },
    async confirmTransaction(signature) {
      const blockhash = sentBlockhashes.get(signature);
      const result = await waitForConfirmation(rpc, toSignature(signature), {
        blockhash,
        timeoutMs: options.confirmTimeoutMs,
        pollIntervalMs: options.pollIntervalMs,
      });
      if (result.type !== "pending") sentBlockhashes.delete(signature);
      if (result.type === "confirmed") return;
      // Terminal outcomes let the library release its caches; "pending" must not.
      if (result.type === "failed")
        throw new TransactionOnchainFailureError(`transaction failed: ${result.error}`);
      if (result.type === "expired")
        throw new TransactionOnchainFailureError("blockhash expired before landing");
      throw new Error("transaction confirmation timed out");
    },
  };
}

function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item));
}
