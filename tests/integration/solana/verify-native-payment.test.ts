import { randomBytes } from "node:crypto";
import {
  type Address,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  type Signature,
  type TransactionSigner,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { getTransferCheckedInstruction } from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveAssociatedTokenAddress } from "../../../lib/chains/solana/associated-token-address";
import {
  NATIVE_PAYMENT_NOT_FOUND_MESSAGE,
  type VerifyNativePaymentInput,
  verifyNativePayment,
} from "../../../lib/chains/solana/verify-native-payment";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { signInstructions } from "../../helpers/solana/transactions";

let solana: LocalSolana;
let payer: KeyPairSigner;
let merchant: KeyPairSigner;
let stranger: KeyPairSigner;

beforeAll(async () => {
  solana = await startLocalSolana();
  [payer, merchant, stranger] = await Promise.all([
    generateKeyPairSigner(),
    generateKeyPairSigner(),
    generateKeyPairSigner(),
  ]);
  for (const wallet of [payer, stranger]) {
    await solana.airdrop(wallet.address, 1_000_000_000n);
    await solana.mintUsdc(wallet.address, 10_000_000n);
  }
  // The gateway pre-creates its USDC ATA; self-broadcast payers only transfer into it.
  await solana.createAta(merchant.address, solana.usdcMint);
  await solana.airdrop(merchant.address, 10_000_000n);
});

afterAll(async () => {
  await solana?.close();
});

function quoteWindow(): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - 60_000), notAfter: new Date(now + 300_000) };
}

function usdcInput(
  signature: string,
  overrides: Partial<VerifyNativePaymentInput> = {},
): VerifyNativePaymentInput {
  return {
    signature,
    asset: "USDC",
    usdcMint: solana.usdcMint,
    payTo: merchant.address,
    payerWallet: payer.address,
    minAmount: 35_000n,
    ...quoteWindow(),
    ...overrides,
  } as VerifyNativePaymentInput;
}

async function usdcTransfer(from: TransactionSigner, to: Address, amount: bigint): Promise<Instruction> {
  return getTransferCheckedInstruction({
    source: await deriveAssociatedTokenAddress(from.address, solana.usdcMint),
    mint: solana.usdcMint,
    destination: await deriveAssociatedTokenAddress(to, solana.usdcMint),
    authority: from,
    amount,
    decimals: 6,
  });
}

async function broadcast(
  feePayer: TransactionSigner,
  instructions: Instruction[],
  options: { skipPreflight?: boolean } = {},
): Promise<Signature> {
  const { value: lifetime } = await solana.rpc.getLatestBlockhash().send();
  const transaction = await signInstructions({ feePayer, instructions, lifetime });
  return solana.rpc
    .sendTransaction(getBase64EncodedWireTransaction(transaction), {
      encoding: "base64",
      skipPreflight: options.skipPreflight ?? false,
    })
    .send();
}

describe("verifyNativePayment (USDC)", () => {
  it("verifies a self-broadcast transferChecked by its balance delta", async () => {
    const signature = await broadcast(payer, [await usdcTransfer(payer, merchant.address, 40_000n)]);
    const result = await verifyNativePayment(solana.rpc, usdcInput(signature));
    expect(result).toMatchObject({ type: "verified", received: 40_000n, feePayer: payer.address });
    if (result.type !== "verified") return;
    expect(Math.abs(result.blockTime.getTime() - Date.now())).toBeLessThan(5_000);
    expect(result.slot).toBeGreaterThan(0n);
  });

  it("rejects a transaction that failed on-chain even though it landed and paid its fee", async () => {
    const signature = await broadcast(payer, [await usdcTransfer(payer, merchant.address, 999_000_000n)], {
      skipPreflight: true,
    });
    const status = await solana.rpc.getSignatureStatuses([signature]).send();
    expect(status.value[0]?.err).not.toBeNull();
    expect(await verifyNativePayment(solana.rpc, usdcInput(signature))).toMatchObject({
      type: "rejected",
      reason: "transaction_failed",
    });
  });

  it("rejects an underpayment", async () => {
    const signature = await broadcast(payer, [await usdcTransfer(payer, merchant.address, 34_999n)]);
    expect(await verifyNativePayment(solana.rpc, usdcInput(signature))).toMatchObject({
      type: "rejected",
      reason: "underpaid",
    });
  });

  it("rejects a transfer older than the quote, and one that landed after it expired", async () => {
    solana.setBlockTime(new Date(Date.now() - 3_600_000));
    let signature: Signature;
    try {
      signature = await broadcast(payer, [await usdcTransfer(payer, merchant.address, 40_001n)]);
    } finally {
      solana.useWallClock();
    }
    expect(await verifyNativePayment(solana.rpc, usdcInput(signature))).toMatchObject({
      type: "rejected",
      reason: "transfer_too_old",
    });
    const expired = { notBefore: new Date(Date.now() - 900_000), notAfter: new Date(Date.now() - 600_000) };
    const late = await broadcast(payer, [await usdcTransfer(payer, merchant.address, 40_002n)]);
    expect(await verifyNativePayment(solana.rpc, usdcInput(late, expired))).toMatchObject({
      type: "rejected",
      reason: "transfer_too_late",
    });
  });

  it("rejects someone else's transfer claimed with another payer_wallet", async () => {
    const signature = await broadcast(stranger, [await usdcTransfer(stranger, merchant.address, 50_000n)]);
    expect(await verifyNativePayment(solana.rpc, usdcInput(signature))).toMatchObject({
      type: "rejected",
      reason: "payer_not_signer",
    });
  });

  it("rejects a claim by a co-signer whose own tokens did not move", async () => {
    // payer only pays the fee; the stranger's USDC funds the transfer.
    const signature = await broadcast(payer, [await usdcTransfer(stranger, merchant.address, 50_000n)]);
    expect(await verifyNativePayment(solana.rpc, usdcInput(signature))).toMatchObject({
      type: "rejected",
      reason: "payer_not_debited",
    });
  });

  it("rejects a transfer that did not credit pay_to", async () => {
    const elsewhere = await generateKeyPairSigner();
    await solana.createAta(elsewhere.address, solana.usdcMint);
    const signature = await broadcast(payer, [await usdcTransfer(payer, elsewhere.address, 50_000n)]);
    expect(await verifyNativePayment(solana.rpc, usdcInput(signature))).toMatchObject({
      type: "rejected",
      reason: "pay_to_not_credited",
    });
  });

  it("rejects a transaction signed by pay_to itself", async () => {
    const signature = await broadcast(merchant, [await usdcTransfer(payer, merchant.address, 50_000n)]);
    expect(await verifyNativePayment(solana.rpc, usdcInput(signature))).toMatchObject({
      type: "rejected",
      reason: "pay_to_is_signer",
    });
  });

  it("answers not_found for unknown and not-yet-confirmed signatures", async () => {
    const bogus = getBase58Decoder().decode(randomBytes(64));
    const result = await verifyNativePayment(solana.rpc, usdcInput(bogus));
    expect(result).toEqual({ type: "not_found", message: NATIVE_PAYMENT_NOT_FOUND_MESSAGE });
    expect(NATIVE_PAYMENT_NOT_FOUND_MESSAGE).toContain("not found or not yet confirmed");

    solana.holdConfirmations();
    try {
      const pending = await broadcast(payer, [await usdcTransfer(payer, merchant.address, 40_004n)]);
      expect((await verifyNativePayment(solana.rpc, usdcInput(pending))).type).toBe("not_found");
    } finally {
      solana.releaseConfirmations();
    }
  });

  it("rejects malformed input without touching the chain", async () => {
    expect(await verifyNativePayment(solana.rpc, usdcInput("not-a-signature"))).toMatchObject({
      type: "rejected",
      reason: "invalid_signature",
    });
    const signature = await broadcast(payer, [await usdcTransfer(payer, merchant.address, 40_005n)]);
    expect(
      await verifyNativePayment(solana.rpc, usdcInput(signature, { payerWallet: "0xabc" })),
    ).toMatchObject({
      type: "rejected",
      reason: "invalid_payer_wallet",
    });
  });
});

describe("verifyNativePayment (SOL)", () => {
  const solInput = (signature: string, overrides: Partial<VerifyNativePaymentInput> = {}) =>
    ({
      signature,
      asset: "SOL",
      payTo: merchant.address,
      payerWallet: payer.address,
      minAmount: 315n,
      ...quoteWindow(),
      ...overrides,
    }) as VerifyNativePaymentInput;

  it("verifies a SOL transfer by the lamport delta of pay_to", async () => {
    const signature = await broadcast(payer, [
      getTransferSolInstruction({ source: payer, destination: merchant.address, amount: 400n }),
    ]);
    expect(await verifyNativePayment(solana.rpc, solInput(signature))).toMatchObject({
      type: "verified",
      received: 400n,
    });
  });

  it("rejects an underpaid SOL transfer and one funded by another signer", async () => {
    const small = await broadcast(payer, [
      getTransferSolInstruction({ source: payer, destination: merchant.address, amount: 314n }),
    ]);
    expect(await verifyNativePayment(solana.rpc, solInput(small))).toMatchObject({ reason: "underpaid" });

    // payer is the fee payer, so its lamports drop by the fee; that alone is not paying.
    const funded = await broadcast(payer, [
      getTransferSolInstruction({ source: stranger, destination: merchant.address, amount: 500n }),
    ]);
    expect(await verifyNativePayment(solana.rpc, solInput(funded))).toMatchObject({
      reason: "payer_not_debited",
    });
  });

  it("does not count USDC as SOL or SOL as USDC", async () => {
    const usdc = await broadcast(payer, [await usdcTransfer(payer, merchant.address, 40_006n)]);
    expect(await verifyNativePayment(solana.rpc, solInput(usdc))).toMatchObject({
      reason: "pay_to_not_credited",
    });
    const sol = await broadcast(payer, [
      getTransferSolInstruction({ source: payer, destination: merchant.address, amount: 50_000n }),
    ]);
    expect(await verifyNativePayment(solana.rpc, usdcInput(sol))).toMatchObject({
      reason: "pay_to_not_credited",
    });
  });
});
