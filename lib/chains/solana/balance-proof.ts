import {
  getBase58Encoder,
  getPublicKeyFromAddress,
  isAddress,
  type SignatureBytes,
  signatureBytes,
  verifySignature,
} from "@solana/kit";

/**
 * Proof of wallet control for the `balance` scheme: the payer signs the UTF-8 string
 * `usepod-x402-spend:<quote_id>` with the wallet that owns the surplus balance, so a
 * spend is bound to one quote and cannot be replayed against another.
 */

const BALANCE_PROOF_PREFIX = "usepod-x402-spend:";

/** Error strings copied from the reference service so clients can match on them. */
export const BALANCE_PROOF_MESSAGES = {
  malformed: "proof is not a 64-byte ed25519 signature",
  doesNotVerify: "proof signature does not verify for payer_wallet",
  invalidWallet: "payer_wallet is not a valid Solana address",
} as const;

type BalanceProofRejection = "proof_malformed" | "proof_signature_invalid" | "payer_wallet_invalid";

export type BalanceProofResult =
  | { type: "valid" }
  | { type: "invalid"; reason: BalanceProofRejection; message: string };

export function balanceProofMessage(quoteId: string): Uint8Array {
  return new TextEncoder().encode(`${BALANCE_PROOF_PREFIX}${quoteId}`);
}

/**
 * Verifies `proof` (base58 or base64, 64 bytes) as an ed25519 signature by `payerWallet`
 * over `usepod-x402-spend:<quoteId>`. Never throws for bad input: every failure is a
 * result, so the caller maps it to a 400 without a try/catch.
 */
export async function verifyBalanceProof(input: {
  quoteId: string;
  payerWallet: string;
  proof: string;
}): Promise<BalanceProofResult> {
  if (!isAddress(input.payerWallet)) {
    return { type: "invalid", reason: "payer_wallet_invalid", message: BALANCE_PROOF_MESSAGES.invalidWallet };
  }
  const candidates = decodeSignatureCandidates(input.proof.trim());
  if (candidates.length === 0) {
    return { type: "invalid", reason: "proof_malformed", message: BALANCE_PROOF_MESSAGES.malformed };
  }
  let publicKey: CryptoKey;
  try {
    publicKey = await getPublicKeyFromAddress(input.payerWallet);
  } catch {
    // A 32-byte value that is not an ed25519 point cannot have signed anything.
    return {
      type: "invalid",
      reason: "proof_signature_invalid",
      message: BALANCE_PROOF_MESSAGES.doesNotVerify,
    };
  }
  const message = balanceProofMessage(input.quoteId);
  for (const candidate of candidates) {
    if (await verifySignature(publicKey, candidate, message).catch(() => false)) {
      return { type: "valid" };
    }
  }
  return {
    type: "invalid",
    reason: "proof_signature_invalid",
    message: BALANCE_PROOF_MESSAGES.doesNotVerify,
  };
}

const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+={0,2})$/;

/**
 * Every 64-byte reading of `proof`. Unpadded base64 can also be valid base58, so both
 * readings are kept and each is tried; a wrong reading simply fails to verify.
 */
function decodeSignatureCandidates(proof: string): SignatureBytes[] {
  const candidates: SignatureBytes[] = [];
  try {
    const bytes = getBase58Encoder().encode(proof);
    if (bytes.length === 64) candidates.push(signatureBytes(new Uint8Array(bytes)));
  } catch {
    // Not base58; fall through to base64.
  }
  if (BASE64_PATTERN.test(proof)) {
    const bytes = Buffer.from(proof, proof.includes("-") || proof.includes("_") ? "base64url" : "base64");
    if (bytes.length === 64) candidates.push(signatureBytes(new Uint8Array(bytes)));
  }
  return candidates;
}
