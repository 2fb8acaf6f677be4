import type { SolanaOptions } from "@pod-gateway/contracts/dashboard-api";
import {
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { getAddMemoInstruction } from "@solana-program/memo";
import { findAssociatedTokenPda, getTransferCheckedInstruction } from "@solana-program/token";

/** The payer's USDC account: its associated token account for the gateway's USDC mint. */
export async function payerUsdcAccount(options: SolanaOptions, payer: string): Promise<string> {
  const [ata] = await findAssociatedTokenPda({
    owner: address(payer),
    tokenProgram: address(options.token_program),
    mint: address(options.usdc_mint),
  });
  return ata;
}

/**
 * The deposit the gateway's watcher credits: a USDC TransferChecked from the payer to the
 * deposit account and a Memo carrying the token's deposit code, in one transaction. Unsigned
 * wire bytes, for the wallet to sign.
 */
export async function buildDepositTransaction(
  options: SolanaOptions,
  payer: string,
  amount: bigint,
  lifetime: { blockhash: string; lastValidBlockHeight: number },
): Promise<Uint8Array> {
  const owner = address(payer);
  const transfer = getTransferCheckedInstruction(
    {
      source: address(await payerUsdcAccount(options, payer)),
      mint: address(options.usdc_mint),
      destination: address(options.deposit_token_account),
      authority: owner,
      amount,
      decimals: options.usdc_decimals,
    },
    { programAddress: address(options.token_program) },
  );
  const memo = getAddMemoInstruction(
    { memo: options.memo },
    { programAddress: address(options.memo_program) },
  );
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayer(owner, draft),
    (draft) =>
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: lifetime.blockhash as Blockhash,
          lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight),
        },
        draft,
      ),
    (draft) => appendTransactionMessageInstructions([transfer, memo], draft),
  );
  return new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)));
}

/** "12.5" -> 12_500_000n microunits; undefined for anything that is not a positive amount. */
export function parseUsdc(text: string, decimals: number): bigint | undefined {
  const match = new RegExp(`^(\\d{1,9})(?:\\.(\\d{1,${decimals}}))?$`).exec(text.trim());
  if (!match) return undefined;
  const value =
    BigInt(match[1] ?? "0") * 10n ** BigInt(decimals) + BigInt((match[2] ?? "").padEnd(decimals, "0") || "0");
  return value > 0n ? value : undefined;
}
