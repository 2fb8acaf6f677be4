import { type Address, getBase64EncodedWireTransaction, type KeyPairSigner } from "@solana/kit";
import { getAddMemoInstruction } from "@solana-program/memo";
import { getTransferCheckedInstruction } from "@solana-program/token";
import { deriveAssociatedTokenAddress } from "../../../lib/chains/solana/associated-token-address";
import { MEMO_PROGRAM_ADDRESS, USDC_DECIMALS } from "../../../lib/chains/solana/constants";
import type { LocalSolana } from "./local-solana";
import { signInstructions } from "./transactions";

/**
 * A wallet paying a deposit code, as an operator's wallet app would: one TransferChecked of USDC
 * into the deposit owner's token account plus a Memo instruction carrying the code
 * (`POD-BOND-…` for a host's bond, a token's deposit code for credit). Returns the signature.
 */
export async function sendUsdcWithMemo(
  solana: LocalSolana,
  input: { payer: KeyPairSigner; owner: Address; amount: bigint; memo: string },
): Promise<string> {
  const instructions = [
    getTransferCheckedInstruction({
      source: await deriveAssociatedTokenAddress(input.payer.address, solana.usdcMint),
      mint: solana.usdcMint,
      destination: await deriveAssociatedTokenAddress(input.owner, solana.usdcMint),
      authority: input.payer,
      amount: input.amount,
      decimals: USDC_DECIMALS,
    }),
    getAddMemoInstruction({ memo: input.memo }, { programAddress: MEMO_PROGRAM_ADDRESS }),
  ];
  const { value: lifetime } = await solana.rpc.getLatestBlockhash().send();
  const transaction = await signInstructions({ feePayer: input.payer, instructions, lifetime });
  return solana.rpc
    .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
    .send();
}
