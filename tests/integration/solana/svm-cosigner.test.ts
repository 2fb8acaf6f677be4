import {
  type Address,
  createNoopSigner,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  signature,
} from "@solana/kit";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "@solana-program/compute-budget";
import { getTransferSolInstruction } from "@solana-program/system";
import { getTransferCheckedInstruction } from "@solana-program/token";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactSvmScheme as ExactSvmClientScheme } from "@x402/svm/exact/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveAssociatedTokenAddress } from "../../../lib/chains/solana/associated-token-address";
import { MEMO_PROGRAM_ADDRESS, SOLANA_DEVNET_CAIP2 } from "../../../lib/chains/solana/constants";
import { createSvmCosigner, type SvmCosigner } from "../../../lib/chains/solana/svm-cosigner";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { signInstructions } from "../../helpers/solana/transactions";

const PRICE = 10_000n;
const MEMO = "pod-quote-7f3a";

let solana: LocalSolana;
let feePayer: KeyPairSigner;
let merchant: KeyPairSigner;
let cosigner: SvmCosigner;

beforeAll(async () => {
  solana = await startLocalSolana();
  [feePayer, merchant] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  await solana.airdrop(feePayer.address, 1_000_000_000n);
  // Create-ATA is not allowed inside an x402 payment, so the gateway owns its ATA up front.
  await solana.createAta(merchant.address, solana.usdcMint);
  cosigner = createSvmCosigner({
    rpcUrl: solana.rpcUrl,
    feePayer,
    network: SOLANA_DEVNET_CAIP2,
    confirmTimeoutMs: 2_000,
    pollIntervalMs: 20,
  });
});

afterAll(async () => {
  await solana?.close();
});

function requirements(overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: "exact",
    network: SOLANA_DEVNET_CAIP2,
    asset: solana.usdcMint,
    amount: PRICE.toString(),
    payTo: merchant.address,
    maxTimeoutSeconds: 60,
    extra: { feePayer: cosigner.feePayer, memo: MEMO },
    ...overrides,
  };
}

/** A payer with USDC and no SOL: on this path the gateway pays the network fee. */
async function newPayer(usdc = 1_000_000n): Promise<KeyPairSigner> {
  const payer = await generateKeyPairSigner();
  await solana.mintUsdc(payer.address, usdc);
  return payer;
}

/** The payment the real @x402/svm client builds for our 402. */
async function clientPayment(payer: KeyPairSigner, accepted = requirements()): Promise<PaymentPayload> {
  const client = new x402Client().register(
    "solana:*",
    new ExactSvmClientScheme(payer, { rpcUrl: solana.rpcUrl }),
  );
  return client.createPaymentPayload({
    x402Version: 2,
    resource: { url: "http://127.0.0.1/v1/chat/completions" },
    accepts: [accepted],
  });
}

function transactionOf(payload: PaymentPayload): string {
  const transaction = payload.payload.transaction;
  if (typeof transaction !== "string") throw new Error("payload has no transaction");
  return transaction;
}

describe("svm co-signer with the real @x402/svm client", () => {
  it("pre-checks, co-signs with a predicted signature, broadcasts once and pays the merchant", async () => {
    const payer = await newPayer();
    const payload = await clientPayment(payer);
    expect(await cosigner.verify(payload, requirements())).toMatchObject({
      isValid: true,
      payer: payer.address,
    });

    const merchantBefore = await solana.getTokenBalance(merchant.address, solana.usdcMint);
    const feePayerBefore = solana.getBalance(feePayer.address);
    const cosigned = await cosigner.cosignAndPredictSignature(transactionOf(payload), requirements());
    if (cosigned.type !== "cosigned") throw new Error(`unexpected ${cosigned.reason}`);
    expect(cosigned).toMatchObject({ payer: payer.address, amount: PRICE });
    // The claim row is written here, before anything is on-chain.
    expect(await cosigner.getSignatureStatus(cosigned.signature)).toEqual({ type: "not_found" });

    const result = await cosigner.broadcastAndConfirm(cosigned.signedTransaction);
    expect(result).toMatchObject({ type: "confirmed", signature: cosigned.signature });
    expect(await solana.getTokenBalance(merchant.address, solana.usdcMint)).toBe(merchantBefore + PRICE);
    expect(await solana.getTokenBalance(payer.address, solana.usdcMint)).toBe(1_000_000n - PRICE);
    // 2 signatures × 5,000 + ceil(20,000 CU × 1 µlamport / 1e6) = 10,001 lamports.
    expect(feePayerBefore - solana.getBalance(feePayer.address)).toBe(10_001n);

    // A retry after a crash converges on the landed payment and sends nothing.
    const again = await cosigner.broadcastAndConfirm(cosigned.signedTransaction);
    expect(again).toMatchObject({ type: "confirmed", signature: cosigned.signature });
    expect(await cosigner.getSignatureStatus(cosigned.signature)).toMatchObject({ type: "confirmed" });
    expect(await solana.getTokenBalance(merchant.address, solana.usdcMint)).toBe(merchantBefore + PRICE);
  });

  it("settles through the library path and refuses to settle the same payload twice", async () => {
    const payer = await newPayer();
    const payload = await clientPayment(payer);
    const merchantBefore = await solana.getTokenBalance(merchant.address, solana.usdcMint);
    const settled = await cosigner.settle(payload, requirements());
    expect(settled).toMatchObject({ success: true, network: SOLANA_DEVNET_CAIP2, payer: payer.address });
    expect(await cosigner.getSignatureStatus(signature(settled.transaction))).toMatchObject({
      type: "confirmed",
    });

    const replay = await cosigner.settle(payload, requirements());
    expect(replay.success).toBe(false);
    expect(await solana.getTokenBalance(merchant.address, solana.usdcMint)).toBe(merchantBefore + PRICE);
  });

  it("reports an unconfirmed broadcast as pending, then converges without resending", async () => {
    const payer = await newPayer();
    const cosigned = await cosigner.cosignAndPredictSignature(
      transactionOf(await clientPayment(payer)),
      requirements(),
    );
    if (cosigned.type !== "cosigned") throw new Error(cosigned.reason);
    solana.holdConfirmations();
    try {
      const pending = await cosigner.broadcastAndConfirm(cosigned.signedTransaction, { timeoutMs: 100 });
      expect(pending).toEqual({ type: "pending", signature: cosigned.signature });
      expect(await cosigner.getSignatureStatus(cosigned.signature)).toMatchObject({ type: "processed" });
    } finally {
      solana.releaseConfirmations();
    }
    expect(await cosigner.broadcastAndConfirm(cosigned.signedTransaction)).toMatchObject({
      type: "confirmed",
    });
  });

  it("reports a co-signed transaction whose blockhash expired as never landing", async () => {
    const payer = await newPayer();
    const cosigned = await cosigner.cosignAndPredictSignature(
      transactionOf(await clientPayment(payer)),
      requirements(),
    );
    if (cosigned.type !== "cosigned") throw new Error(cosigned.reason);
    solana.expireBlockhashes();
    const result = await cosigner.broadcastAndConfirm(cosigned.signedTransaction);
    expect(result).toMatchObject({ type: "rejected", signature: cosigned.signature });
    expect(await cosigner.getSignatureStatus(cosigned.signature)).toEqual({ type: "not_found" });
  });

  it("refuses a payer without funds in simulation, before the fee payer spends anything", async () => {
    const payer = await newPayer(PRICE - 1n);
    const payload = await clientPayment(payer);
    const before = solana.getBalance(feePayer.address);
    expect(await cosigner.verify(payload, requirements())).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_svm_transaction_simulation_failed",
    });
    expect((await cosigner.settle(payload, requirements())).success).toBe(false);
    expect(solana.getBalance(feePayer.address)).toBe(before);
  });
});

describe("svm co-signer pre-check rejects forbidden transactions before signing", () => {
  let payer: KeyPairSigner;

  beforeAll(async () => {
    payer = await newPayer();
  });

  async function transfer(to: Address = merchant.address): Promise<Instruction> {
    return getTransferCheckedInstruction({
      source: await deriveAssociatedTokenAddress(payer.address, solana.usdcMint),
      mint: solana.usdcMint,
      destination: await deriveAssociatedTokenAddress(to, solana.usdcMint),
      authority: payer,
      amount: PRICE,
      decimals: 6,
    });
  }

  function memo(accounts: Address[] = []): Instruction {
    return {
      programAddress: MEMO_PROGRAM_ADDRESS,
      accounts: accounts.map((address) => ({ address, role: 0 })),
      data: new TextEncoder().encode(MEMO),
    };
  }

  async function paymentWith(instructions: Instruction[]): Promise<PaymentPayload> {
    const { value: lifetime } = await solana.rpc.getLatestBlockhash().send();
    const transaction = await signInstructions({ feePayer: cosigner.feePayer, instructions, lifetime });
    return {
      x402Version: 2,
      accepted: requirements(),
      payload: { transaction: getBase64EncodedWireTransaction(transaction) },
    };
  }

  const budget = (units = 20_000) => [
    getSetComputeUnitLimitInstruction({ units }),
    getSetComputeUnitPriceInstruction({ microLamports: 1n }),
  ];

  it.each([
    [
      "a memo listing the fee payer",
      "fee_payer_in_instruction",
      async () => [...budget(), await transfer(), memo([feePayer.address])],
    ],
    [
      "an extra SystemProgram transfer from the fee payer",
      "fee_payer_in_instruction",
      async () => [
        ...budget(),
        await transfer(),
        memo(),
        getTransferSolInstruction({
          source: createNoopSigner(feePayer.address),
          destination: payer.address,
          amount: 1n,
        }),
      ],
    ],
    [
      "an extra SystemProgram transfer from the payer",
      "unknown_program",
      async () => [
        ...budget(),
        await transfer(),
        memo(),
        getTransferSolInstruction({ source: payer, destination: merchant.address, amount: 1n }),
      ],
    ],
    [
      "a transfer to another wallet's ATA",
      "recipient_mismatch",
      async () => [...budget(), await transfer(payer.address), memo()],
    ],
    [
      "a 1.4M compute unit limit",
      "compute_unit_limit_too_high",
      async () => [...budget(1_400_000), await transfer(), memo()],
    ],
  ] as const)("%s", async (_label, reason, makeInstructions) => {
    const payload = await paymentWith([...(await makeInstructions())]);
    const before = solana.getBalance(feePayer.address);
    expect(await cosigner.verify(payload, requirements())).toMatchObject({
      isValid: false,
      invalidReason: reason,
    });
    expect(await cosigner.settle(payload, requirements())).toMatchObject({
      success: false,
      errorReason: reason,
    });
    expect(await cosigner.cosignAndPredictSignature(transactionOf(payload), requirements())).toMatchObject({
      type: "rejected",
      reason,
    });
    expect(solana.getBalance(feePayer.address)).toBe(before);
  });

  it("refuses requirements it did not issue", async () => {
    const payload = await clientPayment(payer);
    const foreignFeePayer = requirements({ extra: { feePayer: payer.address, memo: MEMO } });
    expect(await cosigner.verify(payload, foreignFeePayer)).toMatchObject({
      invalidReason: "fee_payer_not_managed",
    });
    const mainnet = requirements({ network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" });
    expect(await cosigner.verify(payload, mainnet)).toMatchObject({ invalidReason: "invalid_network" });
    // The payment was built for 10,000; a quote for 20,000 must not accept it.
    const pricier = requirements({ amount: "20000" });
    expect(await cosigner.verify(payload, pricier)).toMatchObject({ invalidReason: "amount_mismatch" });
  });
});
