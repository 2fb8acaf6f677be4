import {
  type Address,
  appendTransactionMessageInstructions,
  blockhash,
  createTransactionMessage,
  type Instruction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
  type TransactionSigner,
  type TransactionWithLifetime,
} from "@solana/kit";

/** Builds and signs a v0 transaction; signers are collected from the instructions' accounts. */
export async function signInstructions(input: {
  feePayer: TransactionSigner | Address;
  instructions: readonly Instruction[];
  lifetime: { blockhash: string; lastValidBlockHeight: bigint };
}): Promise<Transaction & TransactionWithLifetime> {
  const lifetime = {
    blockhash: blockhash(input.lifetime.blockhash),
    lastValidBlockHeight: input.lifetime.lastValidBlockHeight,
  };
  const feePayer = input.feePayer;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) =>
      typeof feePayer === "string"
        ? setTransactionMessageFeePayer(feePayer, draft)
        : setTransactionMessageFeePayerSigner(feePayer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(lifetime, draft),
    (draft) => appendTransactionMessageInstructions(input.instructions, draft),
  );
  // Partial signing lets tests leave a slot empty (the x402 fee payer signs later).
  return partiallySignTransactionMessageWithSigners(message);
}
