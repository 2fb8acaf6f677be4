import { randomBytes } from "node:crypto";
import {
  AccountRole,
  type Address,
  appendTransactionMessageInstructions,
  blockhash,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "@solana-program/compute-budget";
import { getTransferSolInstruction } from "@solana-program/system";
import { getTransferCheckedInstruction, getTransferInstruction } from "@solana-program/token";
import { beforeAll, describe, expect, it } from "vitest";
import { deriveAssociatedTokenAddress } from "./associated-token-address";
import { MEMO_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS, USDC_DEVNET_MINT, WSOL_MINT } from "./constants";
import {
  type PreCheckRejection,
  preCheckStandardTransaction,
  type StandardTransactionExpectations,
} from "./standard-transaction-precheck";

let feePayer: Address;
let client: KeyPairSigner;
let payTo: Address;
let expectations: StandardTransactionExpectations;

beforeAll(async () => {
  [feePayer, payTo] = [(await generateKeyPairSigner()).address, (await generateKeyPairSigner()).address];
  client = await generateKeyPairSigner();
  expectations = { feePayer, payTo, mint: USDC_DEVNET_MINT, amount: 10_000n, memo: "quote-commitment" };
});

const fakeBlockhash = () => blockhash(getBase58Decoder().decode(randomBytes(32)));

function memo(text: string, accounts: Address[] = []): Instruction {
  return {
    programAddress: MEMO_PROGRAM_ADDRESS,
    accounts: accounts.map((address) => ({ address, role: AccountRole.READONLY })),
    data: new TextEncoder().encode(text),
  };
}

async function transfer(
  options: { to?: Address; amount?: bigint; mint?: Address } = {},
): Promise<Instruction> {
  const mint = options.mint ?? USDC_DEVNET_MINT;
  return getTransferCheckedInstruction({
    source: await deriveAssociatedTokenAddress(client.address, mint),
    mint,
    destination: await deriveAssociatedTokenAddress(options.to ?? payTo, mint),
    authority: client,
    amount: options.amount ?? 10_000n,
    decimals: 6,
  });
}

/** The layout @x402/svm's client builds: limit, price, TransferChecked, memo. */
async function standardInstructions(): Promise<Instruction[]> {
  return [
    getSetComputeUnitLimitInstruction({ units: 20_000 }),
    getSetComputeUnitPriceInstruction({ microLamports: 1n }),
    await transfer(),
    memo("quote-commitment"),
  ];
}

async function build(instructions: Instruction[], payer: Address = feePayer): Promise<string> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayer(payer, draft),
    (draft) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: fakeBlockhash(), lastValidBlockHeight: 9n },
        draft,
      ),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  return getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
}

describe("preCheckStandardTransaction", () => {
  it("accepts the standard x402 client layout and reports payer and amount", async () => {
    const result = await preCheckStandardTransaction(await build(await standardInstructions()), expectations);
    expect(result).toMatchObject({ type: "ok", payer: client.address, amount: 10_000n });
  });

  const cases: [PreCheckRejection, () => Promise<string | Instruction[]>][] = [
    ["transaction_undecodable", async () => "not base64!"],
    ["fee_payer_mismatch", async () => build(await standardInstructions(), client.address)],
    [
      "fee_payer_in_instruction",
      async () =>
        build([...(await standardInstructions()).slice(0, 3), memo("quote-commitment", [feePayer])]),
    ],
    [
      "fee_payer_in_instruction",
      async () => [
        ...(await standardInstructions()),
        getTransferSolInstruction({ source: createNoopSigner(feePayer), destination: payTo, amount: 1n }),
      ],
    ],
    [
      "unknown_program",
      async () => [
        ...(await standardInstructions()),
        getTransferSolInstruction({ source: client, destination: payTo, amount: 1n }),
      ],
    ],
    [
      "compute_unit_limit_too_high",
      async () => [
        getSetComputeUnitLimitInstruction({ units: 1_400_000 }),
        ...(await standardInstructions()).slice(1),
      ],
    ],
    [
      "compute_unit_price_too_high",
      async () => [
        getSetComputeUnitLimitInstruction({ units: 20_000 }),
        getSetComputeUnitPriceInstruction({ microLamports: 5_000_000n }),
        ...(await standardInstructions()).slice(2),
      ],
    ],
    ["compute_unit_limit_missing", async () => (await standardInstructions()).slice(1)],
    [
      "compute_budget_invalid",
      async () => [getSetComputeUnitLimitInstruction({ units: 10 }), ...(await standardInstructions())],
    ],
    [
      "transfer_missing",
      async () => [...(await standardInstructions()).slice(0, 2), memo("quote-commitment")],
    ],
    ["multiple_transfers", async () => [...(await standardInstructions()), await transfer()]],
    [
      "token_instruction_forbidden",
      async () => [
        ...(await standardInstructions()),
        getTransferInstruction({
          source: await deriveAssociatedTokenAddress(client.address, USDC_DEVNET_MINT),
          destination: await deriveAssociatedTokenAddress(payTo, USDC_DEVNET_MINT),
          authority: client,
          amount: 1n,
        }),
      ],
    ],
    ["recipient_mismatch", async () => replaceTransfer(await transfer({ to: client.address }))],
    ["amount_mismatch", async () => replaceTransfer(await transfer({ amount: 10_001n }))],
    ["mint_mismatch", async () => replaceTransfer(await transfer({ mint: WSOL_MINT }))],
    [
      "token_program_mismatch",
      async () => replaceTransfer({ ...(await transfer()), programAddress: TOKEN_2022_PROGRAM_ADDRESS }),
    ],
    ["memo_mismatch", async () => [...(await standardInstructions()).slice(0, 3), memo("another quote")]],
    ["memo_mismatch", async () => [...(await standardInstructions()), memo("quote-commitment")]],
  ];

  it.each(cases)("rejects %s", async (reason, makeTransaction) => {
    const made = await makeTransaction();
    const transaction = typeof made === "string" ? made : await build(made);
    const result = await preCheckStandardTransaction(transaction, expectations);
    expect(result).toMatchObject({ type: "rejected", reason });
  });

  it("rejects more signers than allowed", async () => {
    const extraSigner = await generateKeyPairSigner();
    const signedMemo = {
      ...memo("co-signed"),
      accounts: [{ address: extraSigner.address, role: AccountRole.READONLY_SIGNER, signer: extraSigner }],
    };
    const transaction = await build([...(await standardInstructions()), signedMemo]);
    const result = await preCheckStandardTransaction(transaction, { ...expectations, memo: undefined });
    expect(result).toMatchObject({ type: "rejected", reason: "too_many_signatures" });
  });
});

async function replaceTransfer(replacement: Instruction): Promise<Instruction[]> {
  const instructions = await standardInstructions();
  instructions[2] = replacement;
  return instructions;
}
