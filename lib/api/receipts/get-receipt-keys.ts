import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

/**
 * GET /v1/receipts/keys – the keys receipts are signed with, as a JWKS whose keys carry their
 * signing windows (`nbf`, and `exp` once retired). Public: a verifier needs no account.
 */
export async function getReceiptKeys({ app }: ApiCall<"none">): Promise<Response> {
  if (!app.receipts) throw new GatewayError("not_found", "receipts are off on this gateway");
  return jsonResponse(app.receipts.keySet, 200, { "cache-control": "public, max-age=300" });
}
