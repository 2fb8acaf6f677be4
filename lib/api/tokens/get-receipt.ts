import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { storedReceipt } from "../../receipts/stored-receipt";
import type { ApiCall } from "../route-definition";

/**
 * GET /proxy/<token>/receipts/<request_id> – the signed receipt of one of the token's requests
 * (a stream's too, which ends before its headers could carry it).
 */
export async function getReceipt({ app, params, principal: record }: ApiCall<"token">): Promise<Response> {
  const requestId = params.id ?? "";
  const receipt = await storedReceipt(app, requestId, record.accountId);
  if (receipt === undefined)
    throw new GatewayError("not_found", `no receipt for ${requestId.slice(0, 64)} on this token`);
  return jsonResponse({ request_id: requestId, receipt }, 200, { "cache-control": "no-store" });
}
