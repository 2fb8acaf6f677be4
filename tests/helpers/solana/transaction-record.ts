import {
  type Address,
  getBase58Decoder,
  getBase64Decoder,
  getTransactionEncoder,
  type MaybeEncodedAccount,
  type Signature,
  type Transaction,
} from "@solana/kit";
import type { InnerInstruction, TransactionMetadata } from "litesvm";
import type { PaymentCompiledMessage } from "../../../lib/chains/solana/decode-transaction";
import { readMint, readTokenAccount, type UiTokenAmount, uiTokenAmount } from "./token-accounts";
import type { TransactionErrorJson } from "./transaction-error-json";

/**
 * What the local chain remembers about a landed transaction, and how it renders it in
 * the `getTransaction` wire shapes (json / base64 / base58) of a real validator.
 */

export interface TokenBalanceJson {
  accountIndex: number;
  mint: Address;
  owner: Address;
  programId: Address;
  uiTokenAmount: UiTokenAmount;
}

export interface LandedTransaction {
  signature: Signature;
  slot: bigint;
  blockTime: bigint;
  transaction: Transaction;
  message: PaymentCompiledMessage;
  err: TransactionErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  logMessages: string[];
  computeUnitsConsumed: bigint;
  innerInstructions: InnerInstructionsJson[];
  /** False while the chain holds confirmations: the tx is only "processed". */
  confirmed: boolean;
}

interface InnerInstructionsJson {
  index: number;
  instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[];
}

export function lamportBalances(accounts: readonly MaybeEncodedAccount[]): bigint[] {
  return accounts.map((account) => (account.exists ? BigInt(account.lamports) : 0n));
}

/** Token balances as validators report them: one entry per token account in the message. */
export function tokenBalances(
  accounts: readonly MaybeEncodedAccount[],
  loadMint: (mint: Address) => MaybeEncodedAccount,
): TokenBalanceJson[] {
  const balances: TokenBalanceJson[] = [];
  accounts.forEach((account, accountIndex) => {
    const token = readTokenAccount(account);
    if (!token) return;
    const decimals = readMint(loadMint(token.mint))?.decimals ?? 0;
    balances.push({
      accountIndex,
      mint: token.mint,
      owner: token.owner,
      programId: token.programId,
      uiTokenAmount: uiTokenAmount(token.amount, decimals),
    });
  });
  return balances;
}

export function innerInstructionsJson(meta: TransactionMetadata): InnerInstructionsJson[] {
  const base58 = getBase58Decoder();
  return meta
    .innerInstructions()
    .map((list: InnerInstruction[], index: number) => ({
      index,
      instructions: list.map((inner) => {
        const compiled = inner.instruction();
        return {
          programIdIndex: compiled.programIdIndex(),
          accounts: Array.from(compiled.accounts()),
          data: base58.decode(compiled.data()),
          stackHeight: inner.stackHeight(),
        };
      }),
    }))
    .filter((entry) => entry.instructions.length > 0);
}

export type TransactionEncoding = "json" | "base64" | "base58";

/** The `getTransaction` result; `withVersion` mirrors `maxSupportedTransactionVersion` being set. */
export function renderTransaction(
  record: LandedTransaction,
  encoding: TransactionEncoding,
  withVersion: boolean,
) {
  const version = record.message.version === 0 ? 0 : "legacy";
  const meta = {
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    fee: record.fee,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    innerInstructions: record.innerInstructions,
    logMessages: record.logMessages,
    preTokenBalances: record.preTokenBalances,
    postTokenBalances: record.postTokenBalances,
    rewards: [],
    computeUnitsConsumed: record.computeUnitsConsumed,
    ...(withVersion ? { loadedAddresses: { writable: [], readonly: [] } } : {}),
  };
  return {
    slot: record.slot,
    blockTime: record.blockTime,
    ...(withVersion ? { version } : {}),
    meta,
    transaction: renderTransactionBody(record, encoding),
  };
}

function renderTransactionBody(record: LandedTransaction, encoding: TransactionEncoding) {
  if (encoding !== "json") {
    const wire = getTransactionEncoder().encode(record.transaction);
    const text = encoding === "base64" ? getBase64Decoder().decode(wire) : getBase58Decoder().decode(wire);
    return [text, encoding];
  }
  const base58 = getBase58Decoder();
  const message = record.message;
  const signatures = Object.values(record.transaction.signatures).map((bytes) =>
    bytes ? base58.decode(bytes) : base58.decode(new Uint8Array(64)),
  );
  return {
    signatures,
    message: {
      accountKeys: message.staticAccounts,
      header: {
        numRequiredSignatures: message.header.numSignerAccounts,
        numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
      },
      recentBlockhash: message.lifetimeToken,
      instructions: message.instructions.map((instruction) => ({
        programIdIndex: instruction.programAddressIndex,
        accounts: instruction.accountIndices ?? [],
        data: base58.decode(instruction.data ?? new Uint8Array()),
        stackHeight: null,
      })),
      ...(message.version === 0 ? { addressTableLookups: [] } : {}),
    },
  };
}
