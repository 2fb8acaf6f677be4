import { createPublicKey } from "node:crypto";
import type { ReceiptKey, ReceiptKeySet } from "@pod-gateway/contracts/usage-receipt";
import { calculateJwkThumbprint } from "jose";
import sodium from "sodium-native";
import { ed25519PrivateKey } from "../crypto/ed25519-seed";

/** The key this gateway signs receipts with, and the public JWK it publishes for it. */
export interface ReceiptSigner {
  kid: string;
  /** libsodium's signing key (seed and public key), in memory it guards. */
  secretKey: Buffer;
  /** `exp` absent: it is the key signing now. */
  published: ReceiptKey;
}

/** The published form of a seed's public key, signing from `nbf` (seconds) until `exp` if retired. */
export async function publicReceiptKey(seed: Buffer, nbf: number, exp?: number): Promise<ReceiptKey> {
  const privateKey = ed25519PrivateKey(seed);
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  const x = jwk.x ?? "";
  const kid = await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x });
  return {
    kty: "OKP",
    crv: "Ed25519",
    x,
    kid,
    alg: "EdDSA",
    use: "sig",
    nbf,
    ...(exp === undefined ? {} : { exp }),
  };
}

export async function receiptSigner(seed: Buffer, nbf: number): Promise<ReceiptSigner> {
  const published = await publicReceiptKey(seed, nbf);
  const publicKey = Buffer.alloc(sodium.crypto_sign_PUBLICKEYBYTES);
  const secretKey = sodium.sodium_malloc(sodium.crypto_sign_SECRETKEYBYTES);
  sodium.crypto_sign_seed_keypair(publicKey, secretKey, seed);
  // Two libraries derive the key from the seed: what signs must be what is published.
  if (publicKey.toString("base64url") !== published.x)
    throw new Error("libsodium and node:crypto derived different public keys from the receipt seed");
  return { kid: published.kid, secretKey, published };
}

/**
 * The key set the gateway publishes: the key signing now first, then the retired ones with their
 * windows. A retired key whose kid is the current one is dropped (a history copied back in).
 */
export function receiptKeySet(signer: ReceiptSigner, history: readonly ReceiptKey[]): ReceiptKeySet {
  return { keys: [signer.published, ...history.filter((key) => key.kid !== signer.kid)] };
}
