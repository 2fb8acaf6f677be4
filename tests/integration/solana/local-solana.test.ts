import {
  type Address,
  createNoopSigner,
  generateKeyPairSigner,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  type KeyPairSigner,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type TransactionMessageBytesBase64,
} from "@solana/kit";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "@solana-program/compute-budget";
import { getTransferSolInstruction } from "@solana-program/system";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { signInstructions } from "../../helpers/solana/transactions";

let solana: LocalSolana;
let payer: KeyPairSigner;

beforeAll(async () => {
  const started = performance.now();
  solana = await startLocalSolana();
  expect(performance.now() - started).toBeLessThan(1_000);
  payer = await generateKeyPairSigner();
  await solana.airdrop(payer.address, 2_000_000_000n);
});

afterAll(async () => {
  await solana?.close();
});

async function transferSol(to: Address, lamports: bigint, extra: { limit?: number; price?: bigint } = {}) {
  const { value: lifetime } = await solana.rpc.getLatestBlockhash().send();
  const budget = [
    ...(extra.limit === undefined ? [] : [getSetComputeUnitLimitInstruction({ units: extra.limit })]),
    ...(extra.price === undefined ? [] : [getSetComputeUnitPriceInstruction({ microLamports: extra.price })]),
  ];
  return signInstructions({
    feePayer: payer,
    instructions: [
      ...budget,
      getTransferSolInstruction({ source: payer, destination: to, amount: lamports }),
    ],
    lifetime,
  });
}

describe("local solana chain", () => {
  it("answers the basic read methods over HTTP", async () => {
    expect(solana.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await solana.rpc.getHealth().send()).toBe("ok");
    expect(await solana.rpc.getGenesisHash().send()).toMatch(/^EtWTRABZaYq6iMfeYKouRu166VU2xqa1/);
    const slot = await solana.rpc.getSlot().send();
    expect(await solana.rpc.getBlockHeight().send()).toBe(slot);
    expect((await solana.rpc.getBalance(payer.address).send()).value).toBe(2_000_000_000n);
    const rent = await solana.rpc.getMinimumBalanceForRentExemption(165n).send();
    expect(rent).toBe(2_039_280n);
    const epoch = await solana.rpc.getEpochInfo().send();
    expect(epoch.absoluteSlot).toBe(slot);
  });

  it("serves the USDC mint at the devnet address, base64 and jsonParsed", async () => {
    const owner = await generateKeyPairSigner();
    const ata = await solana.mintUsdc(owner.address, 1_500_000n);
    const balance = await solana.rpc.getTokenAccountBalance(ata).send();
    expect(balance.value).toMatchObject({ amount: "1500000", decimals: 6, uiAmountString: "1.5" });
    const raw = await solana.rpc.getAccountInfo(solana.usdcMint, { encoding: "base64" }).send();
    expect(raw.value?.owner).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    expect(raw.value?.space).toBe(82n);
    const parsed = await solana.rpc.getAccountInfo(ata, { encoding: "jsonParsed" }).send();
    expect(parsed.value?.data).toMatchObject({
      program: "spl-token",
      parsed: { type: "account", info: { owner: owner.address, mint: solana.usdcMint } },
    });
    const wsolAta = await solana.wrapSol(owner.address, 5_000_000n);
    expect((await solana.rpc.getTokenAccountBalance(wsolAta).send()).value.amount).toBe("5000000");
  });

  it("lands a transfer and reports it like a validator", async () => {
    const recipient = await generateKeyPairSigner();
    const transaction = await transferSol(recipient.address, 10_000_000n, { limit: 20_000, price: 50_000n });
    const signature = await solana.rpc
      .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
      .send();
    expect(signature).toBe(getSignatureFromTransaction(transaction));

    const statuses = await solana.rpc.getSignatureStatuses([signature]).send();
    expect(statuses.value[0]).toMatchObject({ err: null, confirmationStatus: "finalized" });

    const record = await solana.rpc
      .getTransaction(signature, {
        commitment: "confirmed",
        encoding: "json",
        maxSupportedTransactionVersion: 0,
      })
      .send();
    expect(record?.version).toBe(0);
    expect(record?.meta?.err).toBeNull();
    // 5,000 per signature + ceil(20,000 CU × 50,000 µlamports / 1e6) = 5,000 + 1,000.
    expect(record?.meta?.fee).toBe(6_000n);
    const keys = record?.transaction.message.accountKeys ?? [];
    const recipientIndex = keys.indexOf(recipient.address);
    expect(record?.meta?.postBalances[recipientIndex]).toBe(10_000_000n);
    const payerDelta = (record?.meta?.preBalances[0] ?? 0n) - (record?.meta?.postBalances[0] ?? 0n);
    expect(payerDelta).toBe(10_006_000n);
    expect(typeof record?.blockTime).toBe("bigint");

    // Without maxSupportedTransactionVersion a v0 transaction is refused, as on mainnet.
    await expect(solana.rpc.getTransaction(signature, { encoding: "json" }).send()).rejects.toThrow();
  });

  it("lands a failed transaction with its fee when preflight is skipped", async () => {
    const recipient = await generateKeyPairSigner();
    const before = solana.getBalance(payer.address);
    const transaction = await transferSol(recipient.address, 999_000_000_000n);
    const wire = getBase64EncodedWireTransaction(transaction);

    const preflight = solana.rpc.sendTransaction(wire, { encoding: "base64" }).send();
    await expect(preflight).rejects.toSatisfy((error: unknown) =>
      isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE),
    );
    expect(solana.getBalance(payer.address)).toBe(before);

    const signature = await solana.rpc
      .sendTransaction(wire, { encoding: "base64", skipPreflight: true })
      .send();
    const record = await solana.rpc
      .getTransaction(signature, {
        commitment: "confirmed",
        encoding: "json",
        maxSupportedTransactionVersion: 0,
      })
      .send();
    // kit upcasts every number in RPC responses to bigint.
    expect(record?.meta?.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect(record?.meta?.fee).toBe(5_000n);
    expect(solana.getBalance(payer.address)).toBe(before - 5_000n);
    // Re-sending a landed transaction converges on the same signature.
    expect(await solana.rpc.sendTransaction(wire, { encoding: "base64", skipPreflight: true }).send()).toBe(
      signature,
    );
  });

  it("keeps blockhashes valid for 150 slots and drops transactions after that", async () => {
    const recipient = await generateKeyPairSigner();
    const transaction = await transferSol(recipient.address, 1_000_000n);
    const lifetime = transaction.lifetimeConstraint;
    if (!("blockhash" in lifetime)) throw new Error("expected a blockhash lifetime");
    const { value: stillValid } = await solana.rpc
      .isBlockhashValid(lifetime.blockhash, { commitment: "confirmed" })
      .send();
    expect(stillValid).toBe(true);
    solana.expireBlockhashes();
    const wire = getBase64EncodedWireTransaction(transaction);
    // kit surfaces the validator's TransactionError as the cause of the preflight error.
    await expect(solana.rpc.sendTransaction(wire, { encoding: "base64" }).send()).rejects.toMatchObject({
      cause: { message: "Blockhash not found" },
    });
    const signature = await solana.rpc
      .sendTransaction(wire, { encoding: "base64", skipPreflight: true })
      .send();
    expect((await solana.rpc.getSignatureStatuses([signature]).send()).value[0]).toBeNull();
  });

  it("stamps transactions with a pinned block time", async () => {
    const recipient = await generateKeyPairSigner();
    solana.setBlockTime(new Date("2030-01-01T00:00:00Z"));
    try {
      const transaction = await transferSol(recipient.address, 1_000_000n);
      const signature = await solana.rpc
        .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
        .send();
      const record = await solana.rpc
        .getTransaction(signature, {
          commitment: "confirmed",
          encoding: "json",
          maxSupportedTransactionVersion: 0,
        })
        .send();
      expect(record?.blockTime).toBe(1_893_456_000n);
    } finally {
      solana.useWallClock();
    }
  });

  it("can hold confirmations to model a slow cluster", async () => {
    const recipient = await generateKeyPairSigner();
    solana.holdConfirmations();
    const transaction = await transferSol(recipient.address, 1_000_000n);
    const signature = await solana.rpc
      .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
      .send();
    expect((await solana.rpc.getSignatureStatuses([signature]).send()).value[0]?.confirmationStatus).toBe(
      "processed",
    );
    const options = { commitment: "confirmed", encoding: "json", maxSupportedTransactionVersion: 0 } as const;
    expect(await solana.rpc.getTransaction(signature, options).send()).toBeNull();
    solana.releaseConfirmations();
    expect((await solana.rpc.getTransaction(signature, options).send())?.meta?.err).toBeNull();
  });

  it("lists signatures for an address newest first, with before, until, limit and memos", async () => {
    const recipient = await generateKeyPairSigner();
    const sent: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const transaction = await transferSol(recipient.address, 1_000_000n);
      sent.push(
        await solana.rpc
          .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
          .send(),
      );
    }
    // A failed transfer that lands (skipPreflight) is listed with its error.
    const failing = await transferSol(recipient.address, 999_000_000_000n);
    const failed = await solana.rpc
      .sendTransaction(getBase64EncodedWireTransaction(failing), { encoding: "base64", skipPreflight: true })
      .send();
    const all = await solana.rpc.getSignaturesForAddress(recipient.address).send();
    expect(all.map((item) => item.signature)).toEqual([failed, ...[...sent].reverse()]);
    expect(all[0]?.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect(all[1]).toMatchObject({ err: null, memo: null, confirmationStatus: "finalized" });
    expect(typeof all[1]?.slot).toBe("bigint");

    const page = await solana.rpc.getSignaturesForAddress(recipient.address, { limit: 2 }).send();
    expect(page.map((item) => item.signature)).toEqual([failed, sent[3]]);
    const next = await solana.rpc
      .getSignaturesForAddress(recipient.address, { before: page[1]?.signature, limit: 2 })
      .send();
    expect(next.map((item) => item.signature)).toEqual([sent[2], sent[1]]);
    const newer = await solana.rpc
      .getSignaturesForAddress(recipient.address, { until: sent[1] as never, commitment: "confirmed" })
      .send();
    expect(newer.map((item) => item.signature)).toEqual([failed, sent[3], sent[2]]);
    // An unknown `before` yields nothing; an unknown `until` is no bound.
    const unknown = all[0]?.signature.split("").reverse().join("");
    expect(
      await solana.rpc.getSignaturesForAddress(recipient.address, { before: unknown as never }).send(),
    ).toEqual([]);
    expect(
      await solana.rpc.getSignaturesForAddress(recipient.address, { until: unknown as never }).send(),
    ).toHaveLength(5);
    await expect(
      solana.rpc.getSignaturesForAddress(recipient.address, { limit: 1001 }).send(),
    ).rejects.toThrow(/Invalid limit/);

    // The faucet's nonce memo shows in the validator's summary form.
    const funded = await generateKeyPairSigner();
    await solana.airdrop(funded.address, 1_000_000n);
    const [airdrop] = await solana.rpc.getSignaturesForAddress(funded.address).send();
    expect(airdrop?.memo).toMatch(/^\[16\] [0-9a-f]{16}$/);

    // Held confirmations stay out of the list until released.
    solana.holdConfirmations();
    const held = await solana.rpc
      .sendTransaction(getBase64EncodedWireTransaction(await transferSol(recipient.address, 1_000_000n)), {
        encoding: "base64",
      })
      .send();
    expect(
      (await solana.rpc.getSignaturesForAddress(recipient.address, { limit: 1 }).send())[0]?.signature,
    ).toBe(failed);
    solana.releaseConfirmations();
    expect(
      (await solana.rpc.getSignaturesForAddress(recipient.address, { limit: 1 }).send())[0]?.signature,
    ).toBe(held);
  });

  it("simulates without signatures when asked, and computes message fees", async () => {
    const unsigned = await signInstructions({
      feePayer: payer.address,
      instructions: [
        getTransferSolInstruction({
          source: createNoopSigner(payer.address),
          destination: payer.address,
          amount: 1n,
        }),
      ],
      lifetime: (await solana.rpc.getLatestBlockhash().send()).value,
    });
    const wire = getBase64EncodedWireTransaction(unsigned);
    const simulation = await solana.rpc
      .simulateTransaction(wire, { encoding: "base64", sigVerify: false })
      .send();
    expect(simulation.value.err).toBeNull();
    await expect(
      solana.rpc.simulateTransaction(wire, { encoding: "base64", sigVerify: true }).send(),
    ).rejects.toThrow(/signature verification/);
    const message = getBase64Decoder().decode(unsigned.messageBytes) as TransactionMessageBytesBase64;
    const fee = await solana.rpc.getFeeForMessage(message).send();
    expect(fee.value).toBe(5_000n);
  });
});
