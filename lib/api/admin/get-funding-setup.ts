import { fundingSetup } from "../../funding/funding-setup";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

/**
 * GET /v1/admin/funding – for the operator: each way in (card, USDC on Solana, USDC on Base),
 * whether it is offered and which settings are still unset. Customers never see these names.
 */
export async function getFundingSetup({ app }: ApiCall<"admin">): Promise<Response> {
  return jsonResponse(fundingSetup(app.env), 200, { "cache-control": "no-store" });
}
