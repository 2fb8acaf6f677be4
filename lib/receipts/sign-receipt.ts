import { sign } from "node:crypto";
import { receiptJwsType, type UsageReceipt } from "@pod-gateway/contracts/usage-receipt";
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
 * pod-receipt+jws`. Signed with node:crypto's synchronous Ed25519 on the request path: jose's
 * CompactSign (async WebCrypto) cost 58 to 71 µs of CPU per signature here, this 23 to 29 µs
 * (2,000 signatures, three rounds). Verifiers read it with any JWS library (verify-receipt.ts: jose).
 */
export function signReceipt(signer: ReceiptSigner, receipt: UsageReceipt): Promise<string> {
  const signingInput = `${encodedHeader(signer)}.${Buffer.from(JSON.stringify(receipt)).toString("base64url")}`;
  const signature = sign(null, Buffer.from(signingInput), signer.privateKey).toString("base64url");
  return Promise.resolve(`${signingInput}.${signature}`);
}
