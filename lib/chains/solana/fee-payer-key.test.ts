import { randomBytes } from "node:crypto";
import {
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
  getPublicKeyFromAddress,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { parseFeePayerSecret } from "./fee-payer-key";

/** A real 64-byte secret: 32 seed bytes followed by their ed25519 public key. */
async function secretBytes(): Promise<{ bytes: Uint8Array; address: string }> {
  const seed = randomBytes(32);
  const { address } = await createKeyPairSignerFromPrivateKeyBytes(seed);
  return { bytes: new Uint8Array([...seed, ...getAddressEncoder().encode(address)]), address };
}

describe("parseFeePayerSecret", () => {
  it("loads solana-keygen JSON and base58 secrets", async () => {
    const { bytes, address } = await secretBytes();
    const fromJson = await parseFeePayerSecret(JSON.stringify(Array.from(bytes)));
    expect(fromJson.address).toBe(address);
    const fromBase58 = await parseFeePayerSecret(getBase58Decoder().decode(bytes));
    expect(fromBase58.address).toBe(address);
    await expect(getPublicKeyFromAddress(fromBase58.address)).resolves.toBeDefined();
  });

  it("refuses truncated, malformed and mismatched secrets", async () => {
    const { bytes } = await secretBytes();
    await expect(parseFeePayerSecret(getBase58Decoder().decode(bytes.slice(0, 63)))).rejects.toThrow(
      /64 bytes/,
    );
    await expect(parseFeePayerSecret("[1,2,300]")).rejects.toThrow(/array of bytes/);
    const mismatched = new Uint8Array([...bytes.slice(0, 32), ...randomBytes(32)]);
    await expect(parseFeePayerSecret(getBase58Decoder().decode(mismatched))).rejects.toThrow();
  });
});
