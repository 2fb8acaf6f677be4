import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { parseFeePayerSecret } from "../chains/solana/fee-payer-key";

/**
 * The configured co-signing fee payer (X402_FEE_PAYER_SECRET); outside production a throwaway
 * one when none is configured. A secret that does not parse stops the gateway instead of
 * silently disabling the standard scheme.
 */
export async function loadFeePayer(
  secret: string | undefined,
  nodeEnv: "development" | "production" | "test",
): Promise<{ signer: KeyPairSigner; generated: boolean } | undefined> {
  if (secret) return { signer: await parseFeePayerSecret(secret, "X402_FEE_PAYER_SECRET"), generated: false };
  if (nodeEnv === "production") return undefined;
  return { signer: await generateKeyPairSigner(), generated: true };
}
