import { createPublicKey, randomBytes, verify } from "node:crypto";

/** A fresh auth challenge: 32 random bytes the agent must sign with its Ed25519 key. */
export function newAuthNonce(): Buffer {
  return randomBytes(32);
}

/** The raw 32-byte key of a base64 Ed25519 public key, or undefined when it is not one. */
export function decodeAgentPubkey(pubkeyBase64: string): Buffer | undefined {
  const raw = Buffer.from(pubkeyBase64, "base64");
  return raw.length === 32 && raw.toString("base64") === pubkeyBase64 ? raw : undefined;
}

/** True when `signatureBase64` is the key's Ed25519 signature over exactly `nonce`. */
export function verifyNonceSignature(pubkey: Buffer, nonce: Buffer, signatureBase64: string): boolean {
  const signature = Buffer.from(signatureBase64, "base64");
  if (signature.length !== 64) return false;
  try {
    const key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: pubkey.toString("base64url") },
      format: "jwk",
    });
    return verify(null, nonce, key, signature);
  } catch {
    return false;
  }
}
