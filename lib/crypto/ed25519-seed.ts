import { createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";

/** PKCS#8 DER of an Ed25519 private key is this prefix followed by the 32-byte seed (RFC 8410). */
const pkcs8Ed25519Prefix = Buffer.from("302e020100300506032b657004220420", "hex");

/** A 32-byte Ed25519 seed from hex, base64 or base64url text, or undefined when it is not one. */
export function decodeSeed(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const raw = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return raw.length === 32 ? raw : undefined;
}

export function newSeed(): Buffer {
  const { privateKey } = generateKeyPairSync("ed25519");
  return privateKey.export({ format: "der", type: "pkcs8" }).subarray(pkcs8Ed25519Prefix.length);
}

export function ed25519PrivateKey(seed: Buffer): KeyObject {
  return createPrivateKey({ key: Buffer.concat([pkcs8Ed25519Prefix, seed]), format: "der", type: "pkcs8" });
}
