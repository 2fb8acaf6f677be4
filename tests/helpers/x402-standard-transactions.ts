import {
  AccountRole,
  type Address,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "@solana-program/compute-budget";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  findAssociatedTokenPda,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { MEMO_PROGRAM_ADDRESS } from "../../lib/chains/solana/constants";
import type { LocalSolana } from "./solana/local-solana";
import { signInstructions } from "./solana/transactions";

/**
 * Hand-built standard-scheme (`exact` SVM) transactions, the same layout @x402/svm's client
 * builds (limit, price, TransferChecked, memo), with one knob per rule the co-signer enforces,
 * so each forbidden variant can be shown to be refused before our fee payer signs.
 */
export interface StandardTransactionOptions {
  solana: LocalSolana;
  wallet: KeyPairSigner;
  /** Account 0: our fee payer in a well-formed transaction. */
  feePayer: Address | KeyPairSigner;
  payTo: Address;
  mint: Address;
  amount: bigint;
  memo: string | undefined;
  computeUnits?: number;
  microLamportsPerUnit?: bigint;
  /** Adds the fee payer as an account of the memo instruction. */
  feePayerInMemo?: boolean;
  /** Pays from this owner's token account instead of the wallet's (e.g. the fee payer's). */
  authority?: KeyPairSigner;
  /** Sends the transfer to this owner's token account instead of pay_to's. */
  destinationOwner?: Address;
  /** Extra instructions appended after the memo. */
  extra?: Instruction[];
  /** A second TransferChecked of the same kind. */
  duplicateTransfer?: boolean;
}

export async function buildStandardTransaction(options: StandardTransactionOptions): Promise<string> {
  const authority = options.authority ?? options.wallet;
  const [source] = await findAssociatedTokenPda({
    owner: authority.address,
    mint: options.mint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const [destination] = await findAssociatedTokenPda({
    owner: options.destinationOwner ?? options.payTo,
    mint: options.mint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const decimals = options.mint === options.solana.usdcMint ? 6 : 9;
  const transfer = getTransferCheckedInstruction({
    source,
    mint: options.mint,
    destination,
    authority,
    amount: options.amount,
    decimals,
  });
  const feePayerAddress = typeof options.feePayer === "string" ? options.feePayer : options.feePayer.address;
  const memo: Instruction[] =
    options.memo === undefined
      ? []
      : [
          {
            programAddress: MEMO_PROGRAM_ADDRESS,
            accounts: options.feePayerInMemo
              ? [{ address: feePayerAddress, role: AccountRole.READONLY }]
              : [],
            data: new TextEncoder().encode(options.memo),
          },
        ];
  const instructions: Instruction[] = [
    getSetComputeUnitLimitInstruction({ units: options.computeUnits ?? 20_000 }),
    getSetComputeUnitPriceInstruction({ microLamports: options.microLamportsPerUnit ?? 1n }),
    transfer,
    ...(options.duplicateTransfer ? [transfer] : []),
    ...memo,
    ...(options.extra ?? []),
  ];
  const { value: lifetime } = await options.solana.rpc.getLatestBlockhash().send();
  const transaction = await signInstructions({ feePayer: options.feePayer, instructions, lifetime });
  return getBase64EncodedWireTransaction(transaction);
}

/** A System transfer out of `from`: a program the co-signer does not allow. */
export function systemTransfer(from: KeyPairSigner, to: Address, lamports: bigint): Instruction {
  return getTransferSolInstruction({ source: from, destination: to, amount: lamports });
}
