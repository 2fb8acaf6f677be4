import { getBase58Decoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { MEMO_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, WSOL_MINT } from "../../chains/solana/constants";
import { type DepositTransactionJson, readDepositTransaction } from "./read-deposit-transaction";

const target = {
  owner: "Deposit1111111111111111111111111111111111111",
  tokenAccount: "DepositUsdc11111111111111111111111111111111",
  usdcMint: "Usdc111111111111111111111111111111111111111",
};
const payer = "Payer11111111111111111111111111111111111111";
const payerUsdc = "PayerUsdc1111111111111111111111111111111111";
const base58 = getBase58Decoder();
const memoData = (text: string) => base58.decode(new TextEncoder().encode(text));
const transferCheckedData = (amount: bigint) => {
  const bytes = new Uint8Array(10);
  bytes[0] = 12;
  new DataView(bytes.buffer).setBigUint64(1, amount, true);
  bytes[9] = 6;
  return base58.decode(bytes);
};
const balance = (accountIndex: number, owner: string, amount: bigint, mint = target.usdcMint) => ({
  accountIndex,
  mint,
  owner,
  uiTokenAmount: { amount: amount.toString() },
});

/** payer → deposit account, 5 USDC, memo; the deposit account loaded from a lookup table when `viaLookupTable`. */
function depositJson(
  options: { viaLookupTable?: boolean; err?: unknown; amount?: bigint } = {},
): DepositTransactionJson {
  const amount = options.amount ?? 5_000_000n;
  const statics = options.viaLookupTable
    ? [payer, payerUsdc, target.usdcMint, TOKEN_PROGRAM_ADDRESS, MEMO_PROGRAM_ADDRESS]
    : [payer, payerUsdc, target.tokenAccount, target.usdcMint, TOKEN_PROGRAM_ADDRESS, MEMO_PROGRAM_ADDRESS];
  const keys = options.viaLookupTable ? [...statics, target.tokenAccount] : statics;
  const index = (key: string) => keys.indexOf(key);
  return {
    slot: 42n,
    blockTime: 1_800_000_000n,
    meta: {
      err: options.err ?? null,
      preTokenBalances: [
        balance(index(payerUsdc), payer, 9_000_000n),
        balance(index(target.tokenAccount), target.owner, 1n),
      ],
      postTokenBalances: [
        balance(index(payerUsdc), payer, 9_000_000n - amount),
        balance(index(target.tokenAccount), target.owner, 1n + amount),
      ],
      loadedAddresses: options.viaLookupTable ? { writable: [target.tokenAccount], readonly: [] } : null,
    },
    transaction: {
      message: {
        accountKeys: statics,
        instructions: [
          {
            programIdIndex: index(TOKEN_PROGRAM_ADDRESS),
            accounts: [index(payerUsdc), index(target.usdcMint), index(target.tokenAccount), 0],
            data: transferCheckedData(amount),
          },
          { programIdIndex: index(MEMO_PROGRAM_ADDRESS), accounts: [], data: memoData("0123456789abcdef") },
        ],
      },
    },
  };
}

describe("readDepositTransaction", () => {
  it("reads the USDC that reached the deposit account, the memo and the sender", () => {
    expect(readDepositTransaction(depositJson(), target)).toEqual({
      type: "arrival",
      asset: "usdc",
      mint: target.usdcMint,
      amount: 5_000_000n,
      memos: ["0123456789abcdef"],
      sender: payer,
      slot: 42n,
      blockTime: new Date(1_800_000_000_000),
    });
  });

  it("finds the deposit account when a v0 transaction loads it from a lookup table", () => {
    expect(readDepositTransaction(depositJson({ viaLookupTable: true }), target)).toMatchObject({
      type: "arrival",
      asset: "usdc",
      amount: 5_000_000n,
    });
  });

  it("reads a failed transaction as failed and a zero transfer as zero_amount", () => {
    expect(
      readDepositTransaction(depositJson({ err: { InstructionError: [0, { Custom: 1 }] } }), target),
    ).toEqual({
      type: "failed",
    });
    expect(readDepositTransaction(depositJson({ amount: 0n }), target)).toMatchObject({
      type: "arrival",
      asset: "zero_amount",
      amount: 0n,
    });
  });

  it("reads SOL sent to the deposit wallet as another asset, in lamports", () => {
    const systemProgram = "11111111111111111111111111111111";
    const keys = [payer, target.owner, systemProgram, MEMO_PROGRAM_ADDRESS];
    const sol: DepositTransactionJson = {
      slot: 7n,
      blockTime: null,
      meta: {
        err: null,
        preBalances: [2_000_000_000n, 0n, 1n, 1n],
        postBalances: [1_749_995_000n, 250_000_000n, 1n, 1n],
        preTokenBalances: [],
        postTokenBalances: [],
      },
      transaction: {
        message: {
          accountKeys: keys,
          instructions: [{ programIdIndex: 3, accounts: [], data: memoData("0123456789abcdef") }],
        },
      },
    };
    expect(readDepositTransaction(sol, target)).toEqual({
      type: "arrival",
      asset: "other_asset",
      mint: WSOL_MINT,
      amount: 250_000_000n,
      memos: ["0123456789abcdef"],
      sender: payer,
      slot: 7n,
      blockTime: null,
    });
    // The deposit wallet paying a fee (a refund it sends) brings nothing in.
    const outgoing = {
      ...sol,
      meta: { ...sol.meta, err: null, preBalances: [0n, 10n, 1n, 1n], postBalances: [0n, 5n, 1n, 1n] },
    };
    expect(readDepositTransaction(outgoing, target)).toEqual({ type: "none" });
  });

  it("ignores money leaving the deposit account", () => {
    const outgoing = depositJson();
    const meta = outgoing.meta;
    if (!meta) throw new Error("no meta");
    outgoing.meta = {
      ...meta,
      preTokenBalances: meta.postTokenBalances,
      postTokenBalances: meta.preTokenBalances,
    };
    expect(readDepositTransaction(outgoing, target)).toEqual({ type: "none" });
  });
});
