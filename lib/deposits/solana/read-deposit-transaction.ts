import { getBase58Encoder } from "@solana/kit";
import {
  MEMO_PROGRAM_ADDRESS,
  MEMO_V1_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  WSOL_MINT,
} from "../../chains/solana/constants";
import { lamportDelta } from "../../chains/solana/lamport-delta";

/**
 * The parts of a `getTransaction` answer (encoding `json`) the deposit watcher reads. Numbers
 * may arrive as bigint (kit upcasts them) or number; both are accepted.
 * @see https://solana.com/docs/rpc/http/gettransaction
 */
export interface DepositTransactionJson {
  slot: bigint | number;
  blockTime?: bigint | number | null;
  meta: {
    err: unknown;
    /** Lamports of each account before and after, indexed like the balances below. */
    preBalances?: readonly (bigint | number)[] | null;
    postBalances?: readonly (bigint | number)[] | null;
    preTokenBalances?: readonly TokenBalanceJson[] | null;
    postTokenBalances?: readonly TokenBalanceJson[] | null;
    /** v0 transactions: accounts loaded from lookup tables, indexed after the static keys. */
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
  transaction: {
    message: {
      accountKeys: readonly string[];
      instructions: readonly {
        programIdIndex: bigint | number;
        accounts: readonly (bigint | number)[];
        data: string;
      }[];
    };
  };
}

interface TokenBalanceJson {
  accountIndex: bigint | number;
  mint: string;
  owner?: string | null;
  uiTokenAmount: { amount: string };
}

/** Where deposits arrive: the owner wallet and its USDC account. */
export interface DepositTarget {
  owner: string;
  tokenAccount: string;
  usdcMint: string;
}

/** What one transaction brought to the deposit wallet, before its memo is matched to anyone. */
export type DepositReading =
  /** Failed on-chain: nothing moved, nothing is credited or parked. */
  | { type: "failed" }
  /** Brought nothing in (an outgoing refund or sweep, an account creation, …). */
  | { type: "none" }
  | {
      type: "arrival";
      /**
       * `usdc`: USDC reached the deposit account; `other_asset`: another token, or SOL itself
       * (mint = the wrapped-SOL mint, amount in lamports), reached the wallet; `zero_amount`: a transfer of 0.
       */
      asset: "usdc" | "other_asset" | "zero_amount";
      mint: string;
      /** Atomic units of `mint` that arrived (0 for a zero-amount transfer). */
      amount: bigint;
      /** Text of each Memo instruction, in order. */
      memos: string[];
      /** The wallet the tokens came from (owner of the debited token account), else the fee payer. */
      sender: string | null;
      slot: bigint;
      blockTime: Date | null;
    };

const memoPrograms: readonly string[] = [MEMO_PROGRAM_ADDRESS, MEMO_V1_PROGRAM_ADDRESS];
const tokenPrograms: readonly string[] = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS];
/** SPL Token instruction tags whose destination can be the deposit account. */
const TRANSFER = 3;
const TRANSFER_CHECKED = 12;

/**
 * Reads what arrived at the deposit wallet from the balances the validator recorded (the
 * truth of what moved, whatever instructions moved it), and the transaction's memos. USDC
 * counts only when it reached the deposit USDC account itself.
 */
export function readDepositTransaction(
  transaction: DepositTransactionJson,
  target: DepositTarget,
): DepositReading {
  const meta = transaction.meta;
  if (!meta || meta.err !== null) return { type: "failed" };
  const keys = accountKeysOf(transaction);
  const deltas = tokenDeltas(keys, meta.preTokenBalances ?? [], meta.postTokenBalances ?? []);
  const base = {
    memos: memosOf(transaction, keys),
    slot: BigInt(transaction.slot),
    blockTime:
      transaction.blockTime === null || transaction.blockTime === undefined
        ? null
        : new Date(Number(transaction.blockTime) * 1000),
  };
  const usdc = deltas.find(
    (delta) => delta.account === target.tokenAccount && delta.mint === target.usdcMint,
  );
  if (usdc && usdc.amount > 0n) {
    return {
      type: "arrival",
      asset: "usdc",
      mint: target.usdcMint,
      amount: usdc.amount,
      sender: senderOf(deltas, target.usdcMint, keys),
      ...base,
    };
  }
  if (usdc && usdc.amount < 0n) return { type: "none" };
  const other = deltas.find(
    (delta) => delta.owner === target.owner && delta.mint !== target.usdcMint && delta.amount > 0n,
  );
  if (other) {
    return {
      type: "arrival",
      asset: "other_asset",
      mint: other.mint,
      amount: other.amount,
      sender: senderOf(deltas, other.mint, keys),
      ...base,
    };
  }
  // SOL sent to the wallet itself (a system transfer): the owner's lamports went up.
  const lamports = lamportDelta(meta.preBalances ?? [], meta.postBalances ?? [], keys.indexOf(target.owner));
  if (lamports > 0n) {
    return {
      type: "arrival",
      asset: "other_asset",
      mint: WSOL_MINT,
      amount: lamports,
      sender: keys[0] ?? null,
      ...base,
    };
  }
  if (hasTransferTo(transaction, keys, target.tokenAccount)) {
    return {
      type: "arrival",
      asset: "zero_amount",
      mint: target.usdcMint,
      amount: 0n,
      sender: keys[0] ?? null,
      ...base,
    };
  }
  return { type: "none" };
}

/**
 * How much this transaction changed `account`'s balance of `mint`, per the balances the
 * validator recorded (negative: tokens left it); 0 for a failed transaction. The reconciliation
 * reads what left the payout wallet with it.
 */
export function tokenAccountDelta(
  transaction: DepositTransactionJson,
  account: string,
  mint: string,
): bigint {
  const meta = transaction.meta;
  if (!meta || meta.err !== null) return 0n;
  const keys = accountKeysOf(transaction);
  const delta = tokenDeltas(keys, meta.preTokenBalances ?? [], meta.postTokenBalances ?? []).find(
    (one) => one.account === account && one.mint === mint,
  );
  return delta?.amount ?? 0n;
}

/** Balances index the static keys, then the writable and read-only lookup-table accounts. */
function accountKeysOf(transaction: DepositTransactionJson): string[] {
  const loaded = transaction.meta?.loadedAddresses;
  return [
    ...transaction.transaction.message.accountKeys,
    ...(loaded?.writable ?? []),
    ...(loaded?.readonly ?? []),
  ];
}

interface TokenDelta {
  account: string;
  mint: string;
  owner: string | null;
  amount: bigint;
}

function tokenDeltas(
  keys: readonly string[],
  pre: readonly TokenBalanceJson[],
  post: readonly TokenBalanceJson[],
): TokenDelta[] {
  const byAccount = new Map<string, TokenDelta>();
  const visit = (balance: TokenBalanceJson, sign: bigint) => {
    const account = keys[Number(balance.accountIndex)];
    if (!account) return;
    const key = `${account}:${balance.mint}`;
    const entry = byAccount.get(key) ?? {
      account,
      mint: balance.mint,
      owner: balance.owner ?? null,
      amount: 0n,
    };
    entry.amount += sign * BigInt(balance.uiTokenAmount.amount);
    entry.owner ??= balance.owner ?? null;
    byAccount.set(key, entry);
  };
  for (const balance of pre) visit(balance, -1n);
  for (const balance of post) visit(balance, 1n);
  return [...byAccount.values()];
}

function senderOf(deltas: readonly TokenDelta[], mint: string, keys: readonly string[]): string | null {
  const debited = deltas.find((delta) => delta.mint === mint && delta.amount < 0n && delta.owner);
  return debited?.owner ?? keys[0] ?? null;
}

function memosOf(transaction: DepositTransactionJson, accountKeys: readonly string[]): string[] {
  const { instructions } = transaction.transaction.message;
  const decoder = new TextDecoder("utf-8", { fatal: false });
  return instructions
    .filter((instruction) => memoPrograms.includes(accountKeys[Number(instruction.programIdIndex)] ?? ""))
    .map((instruction) => decoder.decode(new Uint8Array(getBase58Encoder().encode(instruction.data))));
}

/** A top-level Transfer/TransferChecked whose destination is the deposit account (any amount). */
function hasTransferTo(
  transaction: DepositTransactionJson,
  accountKeys: readonly string[],
  tokenAccount: string,
): boolean {
  const { instructions } = transaction.transaction.message;
  return instructions.some((instruction) => {
    if (!tokenPrograms.includes(accountKeys[Number(instruction.programIdIndex)] ?? "")) return false;
    const data = getBase58Encoder().encode(instruction.data);
    const destination =
      data[0] === TRANSFER_CHECKED
        ? instruction.accounts[2]
        : data[0] === TRANSFER
          ? instruction.accounts[1]
          : undefined;
    return destination !== undefined && accountKeys[Number(destination)] === tokenAccount;
  });
}
