import { generateKeyPairSigner, getBase64EncodedWireTransaction, type KeyPairSigner } from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  broadcastAndConfirm,
  getSignatureStatus,
  waitForConfirmation,
} from "../../../lib/chains/solana/transaction-broadcast";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { signInstructions } from "../../helpers/solana/transactions";

let solana: LocalSolana;
let payer: KeyPairSigner;

beforeAll(async () => {
  solana = await startLocalSolana();
  payer = await generateKeyPairSigner();
  await solana.airdrop(payer.address, 100_000_000n);
});

afterAll(async () => {
  await solana?.close();
});

async function signedTransfer(lamports: bigint) {
  const recipient = await generateKeyPairSigner();
  const { value: lifetime } = await solana.rpc.getLatestBlockhash().send();
  const transaction = await signInstructions({
    feePayer: payer,
    instructions: [
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports }),
    ],
    lifetime,
  });
  return { wire: getBase64EncodedWireTransaction(transaction), blockhash: lifetime.blockhash };
}

describe("broadcastAndConfirm", () => {
  it("reports a transaction that landed and failed as failed, without sending it again", async () => {
    const { wire } = await signedTransfer(10_000_000_000n);
    const signature = await solana.rpc
      .sendTransaction(wire, { encoding: "base64", skipPreflight: true })
      .send();
    const balance = solana.getBalance(payer.address);
    const result = await broadcastAndConfirm(solana.rpc, wire, { pollIntervalMs: 10 });
    expect(result).toMatchObject({ type: "failed", signature });
    expect(solana.getBalance(payer.address)).toBe(balance);
  });

  it("reports a preflight refusal as rejected: nothing landed", async () => {
    const { wire } = await signedTransfer(10_000_000_000n);
    const balance = solana.getBalance(payer.address);
    const result = await broadcastAndConfirm(solana.rpc, wire, { pollIntervalMs: 10 });
    expect(result.type).toBe("rejected");
    expect(result.type === "rejected" && result.message).toMatch(/simulation failed/);
    expect(solana.getBalance(payer.address)).toBe(balance);
  });

  it("reports a dropped transaction as expired once its blockhash is dead", async () => {
    const { wire, blockhash } = await signedTransfer(1_000_000n);
    solana.expireBlockhashes();
    const signature = await solana.rpc
      .sendTransaction(wire, { encoding: "base64", skipPreflight: true })
      .send();
    expect(await getSignatureStatus(solana.rpc, signature)).toEqual({ type: "not_found" });
    expect(await waitForConfirmation(solana.rpc, signature, { blockhash, pollIntervalMs: 10 })).toEqual({
      type: "expired",
      signature,
    });
    // Without the blockhash the outcome cannot be proven, so the budget ends in pending.
    expect(await waitForConfirmation(solana.rpc, signature, { timeoutMs: 50, pollIntervalMs: 10 })).toEqual({
      type: "pending",
      signature,
    });
  });
});
