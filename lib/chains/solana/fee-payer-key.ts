import { createKeyPairSignerFromBytes, getBase58Encoder, type KeyPairSigner } from "@solana/kit";

/**
 * Loads a Solana signing key from configuration (the x402 co-signer's fee payer, the host
 * payout wallet). Accepts the two formats operators have at hand: the `solana-keygen` JSON
 * array of 64 bytes, or the base58 64-byte secret that wallets export. The public half is
 * checked against the private half, so a truncated or mixed-up secret fails at start-up, not
 * at the first payment. `setting` names the variable in the error, so a typo stops the
 * gateway with a message that says which one.
 */
export async function parseFeePayerSecret(
  secret: string,
  setting = "fee payer secret",
): Promise<KeyPairSigner> {
  const text = secret.trim();
  let bytes: Uint8Array;
  if (text.startsWith("[")) {
    const parsed: unknown = JSON.parse(text);
    const isByteArray =
      Array.isArray(parsed) && parsed.every((item) => Number.isInteger(item) && item >= 0 && item <= 255);
    if (!isByteArray) throw new Error(`${setting} JSON must be an array of bytes`);
    bytes = Uint8Array.from(parsed);
  } else {
    bytes = new Uint8Array(getBase58Encoder().encode(text));
  }
  if (bytes.length !== 64) throw new Error(`${setting} must be 64 bytes, got ${bytes.length}`);
  return createKeyPairSignerFromBytes(bytes);
}
