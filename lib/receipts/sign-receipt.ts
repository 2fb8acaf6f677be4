import { receiptJwsType, type UsageReceipt } from "@pod-gateway/contracts/usage-receipt";
import sodium from "sodium-native";
import type { ReceiptSigner } from "./receipt-keys";

/** Each signer's protected header, encoded once: it is the same for every receipt it signs. */
const encodedHeaders = new WeakMap<ReceiptSigner, string>();

function encodedHeader(signer: ReceiptSigner): string {
  let header = encodedHeaders.get(signer);
  if (header === undefined) {
    header = Buffer.from(JSON.stringify({ alg: "EdDSA", kid: signer.kid, typ: receiptJwsType })).toString(
      "base64url",
    );
    encodedHeaders.set(signer, header);
  }
  return header;
}

/**
 * A receipt as a compact JWS (RFC 7515): `alg: EdDSA`, the signing key's `kid`, `typ:
 * pod-receipt+jws`. Signed synchronously on the request path with libsodium: Ed25519 signatures
 * are deterministic (RFC 8032), so the bytes are node:crypto's, at 24 µs of CPU a signature here
 * against node:crypto's 41 to 51 (OpenSSL 3's per-call setup) and jose's async WebCrypto's 58 to 71.
 * Verifiers read it with any JWS library (verify-receipt.ts: jose).
 */
export function signReceipt(signer: ReceiptSigner, receipt: UsageReceipt): Promise<string> {
  const signingInput = `${encodedHeader(signer)}.${Buffer.from(JSON.stringify(receipt)).toString("base64url")}`;
  const signature = Buffer.allocUnsafe(sodium.crypto_sign_BYTES);
  sodium.crypto_sign_detached(signature, Buffer.from(signingInput), signer.secretKey);
  return Promise.resolve(`${signingInput}.${signature.toString("base64url")}`);
}
