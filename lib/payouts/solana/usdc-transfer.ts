import {
  type Address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from "@solana-program/token";
import { deriveAssociatedTokenAddress } from "../../chains/solana/associated-token-address";
import { USDC_DECIMALS } from "../../chains/solana/constants";

export interface SignedTransfer {
  signature: string;
  wireBase64: string;
}

/**
 * A USDC transfer from the payout wallet to `destination`'s token account (created if
 * missing, paid by the payout wallet), signed and ready to send. The signature is known
 * before anything is sent, so it can be recorded first.
 */
export async function signUsdcTransfer(input: {
  payer: KeyPairSigner;
  mint: Address;
  destination: Address;
  amount: bigint;
  lifetime: {
    blockhash: Parameters<typeof setTransactionMessageLifetimeUsingBlockhash>[0]["blockhash"];
    lastValidBlockHeight: bigint;
  };
}): Promise<SignedTransfer> {
  const [source, target] = await Promise.all([
    deriveAssociatedTokenAddress(input.payer.address, input.mint),
    deriveAssociatedTokenAddress(input.destination, input.mint),
  ]);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(input.payer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(input.lifetime, draft),
    (draft) =>
      appendTransactionMessageInstructions(
        [
          getCreateAssociatedTokenIdempotentInstruction({
            payer: input.payer,
            ata: target,
            owner: input.destination,
            mint: input.mint,
          }),
          getTransferCheckedInstruction({
            source,
            mint: input.mint,
            destination: target,
            authority: input.payer,
            amount: input.amount,
            decimals: USDC_DECIMALS,
          }),
        ],
        draft,
      ),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  return {
    signature: getSignatureFromTransaction(transaction),
    wireBase64: getBase64EncodedWireTransaction(transaction),
  };
}
