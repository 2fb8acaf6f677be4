import { generateKeyPairSigner, getBase58Decoder, type KeyPairSigner, signBytes } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import { BALANCE_PROOF_MESSAGES, balanceProofMessage, verifyBalanceProof } from "./balance-proof";

const QUOTE_ID = "3f1c8a5e-6d0b-4f5e-9c7a-2b8d1e4f6a90";

let wallet: KeyPairSigner;
let signature: Uint8Array;

beforeAll(async () => {
  wallet = await generateKeyPairSigner();
  signature = await signBytes(wallet.keyPair.privateKey, balanceProofMessage(QUOTE_ID));
});

describe("verifyBalanceProof", () => {
  it("signs the exact reference string", () => {
    expect(new TextDecoder().decode(balanceProofMessage(QUOTE_ID))).toBe(`usepod-x402-spend:${QUOTE_ID}`);
  });

  it.each([
    ["base58", () => getBase58Decoder().decode(signature)],
    ["base64", () => Buffer.from(signature).toString("base64")],
    ["base64url", () => Buffer.from(signature).toString("base64url")],
  ])("accepts a %s proof from payer_wallet", async (_encoding, encode) => {
    expect(
      await verifyBalanceProof({ quoteId: QUOTE_ID, payerWallet: wallet.address, proof: encode() }),
    ).toEqual({
      type: "valid",
    });
  });

  it("rejects a proof for another quote or from another wallet", async () => {
    const proof = getBase58Decoder().decode(signature);
    const otherQuote = await verifyBalanceProof({
      quoteId: "another-quote",
      payerWallet: wallet.address,
      proof,
    });
    expect(otherQuote).toEqual({
      type: "invalid",
      reason: "proof_signature_invalid",
      message: "proof signature does not verify for payer_wallet",
    });
    const other = await generateKeyPairSigner();
    const otherWallet = await verifyBalanceProof({ quoteId: QUOTE_ID, payerWallet: other.address, proof });
    expect(otherWallet).toMatchObject({ reason: "proof_signature_invalid" });
  });

  it.each([
    // (Not 63 bytes in base58: 86 base58 characters also read as 64 bytes of unpadded base64.)
    ["32 bytes", () => getBase58Decoder().decode(signature.slice(0, 32))],
    ["63 bytes of base64", () => Buffer.from(signature.slice(0, 63)).toString("base64")],
    ["65 bytes", () => Buffer.from([...signature, 1]).toString("base64")],
    ["garbage", () => "not a signature!"],
    ["empty", () => ""],
  ])("rejects a proof of %s as malformed", async (_case, encode) => {
    expect(
      await verifyBalanceProof({ quoteId: QUOTE_ID, payerWallet: wallet.address, proof: encode() }),
    ).toEqual({
      type: "invalid",
      reason: "proof_malformed",
      message: BALANCE_PROOF_MESSAGES.malformed,
    });
    expect(BALANCE_PROOF_MESSAGES.malformed).toBe("proof is not a 64-byte ed25519 signature");
  });

  it("rejects a payer_wallet that is not an address", async () => {
    const proof = getBase58Decoder().decode(signature);
    expect(await verifyBalanceProof({ quoteId: QUOTE_ID, payerWallet: "0x1234", proof })).toMatchObject({
      type: "invalid",
      reason: "payer_wallet_invalid",
    });
  });
});
