import {
  createKeyPairSignerFromBytes,
  generateKeyPairSigner,
  getBase58Encoder,
  type KeyPairSigner,
} from "@solana/kit";

/**
 * Reads the co-signing fee payer's key: a base58 64-byte secret key (what wallets export)
 * or a solana-keygen JSON array of 64 numbers. Throws on anything else, so a typo in the
 * setting stops the gateway instead of silently disabling the standard scheme.
 */
async function parseFeePayerSecret(secret: string): Promise<KeyPairSigner> {
  const text = secret.trim();
  let bytes: Uint8Array;
  if (text.startsWith("[")) {
    const parsed: unknown = JSON.parse(text);
    if (
      !Array.isArray(parsed) ||
      !parsed.every((value) => Number.isInteger(value) && value >= 0 && value < 256)
    ) {
      throw new Error("X402_FEE_PAYER_SECRET: expected a JSON array of bytes");
    }
    bytes = Uint8Array.from(parsed as number[]);
  } else {
    bytes = new Uint8Array(getBase58Encoder().encode(text));
  }
  if (bytes.length !== 64) throw new Error(`X402_FEE_PAYER_SECRET: expected 64 bytes, got ${bytes.length}`);
  return createKeyPairSignerFromBytes(bytes);
}

/** The configured fee payer; outside production a throwaway one when none is configured. */
export async function loadFeePayer(
  secret: string | undefined,
  nodeEnv: "development" | "production" | "test",
): Promise<{ signer: KeyPairSigner; generated: boolean } | undefined> {
  if (secret) return { signer: await parseFeePayerSecret(secret), generated: false };
  if (nodeEnv === "production") return undefined;
  return { signer: await generateKeyPairSigner(), generated: true };
}
