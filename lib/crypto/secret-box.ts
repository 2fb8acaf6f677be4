import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM for secrets at rest (relay upstream keys). The stored form is
 * `v1:<base64 of iv(12) | tag(16) | ciphertext>`; the version prefix leaves room for key
 * rotation. Associated data binds a ciphertext to its row, so a ciphertext copied onto
 * another row fails to decrypt instead of silently serving someone else's key.
 */

const version = "v1";
const ivBytes = 12;
const tagBytes = 16;

export class SecretBoxError extends Error {
  override readonly name = "SecretBoxError";
}

/** Parses a 32-byte key given as 64 hex characters or as base64. */
export function parseEncryptionKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : Buffer.from(trimmed, "base64");
  if (key.length !== 32)
    throw new SecretBoxError("encryption key must be 32 bytes (64 hex characters or base64)");
  return key;
}

export function encryptSecret(key: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${version}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64")}`;
}

export function decryptSecret(key: Buffer, sealed: string, associatedData: string): string {
  const [prefix, payload] = sealed.split(":", 2);
  if (prefix !== version || payload === undefined) throw new SecretBoxError("unknown secret format");
  const bytes = Buffer.from(payload, "base64");
  if (bytes.length < ivBytes + tagBytes) throw new SecretBoxError("secret is truncated");
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, ivBytes));
  decipher.setAAD(Buffer.from(associatedData, "utf8"));
  decipher.setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(ivBytes + tagBytes)), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    // Never include the payload: the message may reach a log line.
    throw new SecretBoxError("secret failed authentication (wrong key or tampered ciphertext)");
  }
}
