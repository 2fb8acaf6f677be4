import { receiptJwsType, type UsageReceipt } from "@pod-gateway/contracts/usage-receipt";
import { CompactSign } from "jose";
import type { ReceiptSigner } from "./receipt-keys";

const encoder = new TextEncoder();

/** A receipt as a compact JWS: `alg: EdDSA`, the signing key's `kid`, `typ: pod-receipt+jws`. */
export function signReceipt(signer: ReceiptSigner, receipt: UsageReceipt): Promise<string> {
  return new CompactSign(encoder.encode(JSON.stringify(receipt)))
    .setProtectedHeader({ alg: "EdDSA", kid: signer.kid, typ: receiptJwsType })
    .sign(signer.privateKey);
}
