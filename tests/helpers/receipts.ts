import { type ReceiptKeySet, receiptKeySetSchema } from "@pod-gateway/contracts/usage-receipt";
import { type ReceiptExpectations, verifyReceipt } from "../../lib/receipts/verify-receipt";

/** A gateway's published receipt keys, as a verifier fetches them. */
async function publishedKeys(baseUrl: string): Promise<ReceiptKeySet> {
  return receiptKeySetSchema.parse(await (await fetch(`${baseUrl}/v1/receipts/keys`)).json());
}

const commentPattern = /\n: x-pod-receipt ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\n\n$/;

/** A stream's receipt (its last SSE comment) and the bytes it covers (everything before). */
export function streamReceipt(text: string): { jws: string; covered: string } {
  const match = commentPattern.exec(text);
  if (!match?.[1]) throw new Error(`the stream ends without a receipt: …${text.slice(-200)}`);
  return { jws: match[1], covered: text.slice(0, match.index + 1) };
}

/** Verifies a receipt offline against the gateway's keys; throws with the reason when it fails. */
export async function verifiedReceipt(baseUrl: string, jws: string, expect: ReceiptExpectations = {}) {
  const result = await verifyReceipt(jws, await publishedKeys(baseUrl), expect);
  if (!result.ok) throw new Error(`receipt invalid: ${result.reason}`);
  return result.receipt;
}
