import { and, eq } from "drizzle-orm";
import { usageReceipts } from "../../db/schema";
import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

/**
 * GET /proxy/<token>/receipts/<request_id> – the signed receipt of one of the token's requests
 * (a stream's too, which ends before its headers could carry it).
 */
export async function getReceipt({ app, params, principal: record }: ApiCall<"token">): Promise<Response> {
  const requestId = params.id ?? "";
  await app.receipts?.store.flush();
  const [row] = await app.database.db
    .select({ jws: usageReceipts.jws })
    .from(usageReceipts)
    .where(and(eq(usageReceipts.requestId, requestId), eq(usageReceipts.accountId, record.accountId)));
  if (!row) throw new GatewayError("not_found", `no receipt for ${requestId.slice(0, 64)} on this token`);
  return jsonResponse({ request_id: requestId, receipt: row.jws }, 200, { "cache-control": "no-store" });
}
