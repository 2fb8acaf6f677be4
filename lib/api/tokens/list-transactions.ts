import { listActivity } from "../../activity/queries";
import { badRequest } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

const maxLimit = 200;

/** GET /proxy/<token>/transactions – the token's credits and debits, newest first, with usage per request. */
export async function listTransactions(call: ApiCall<"token">): Promise<Response> {
  const { app, request, principal: record } = call;
  const token = call.params.token ?? "";
  const params = new URL(request.url).searchParams;
  const limit = Number(params.get("limit") ?? "50");
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit)
    throw badRequest(`limit must be an integer from 1 to ${maxLimit}`);
  const before = params.get("before");
  if (before !== null && !/^[0-9]{1,19}$/.test(before))
    throw badRequest("before must be a cursor from next_cursor");
  await app.leases?.flush();
  const page = await listActivity(app.database.db, record.accountId, {
    limit,
    before: before === null ? undefined : BigInt(before),
  });
  const transactions = page.items.map((item) => ({
    id: item.transactionId,
    kind: item.kind,
    amount_microunits: Number(item.amount),
    created_at: item.createdAt.toISOString(),
    ...(item.kind === "inference"
      ? {
          request_id: item.metadata.request_id ?? null,
          model: item.metadata.model ?? null,
          route: item.metadata.route ?? null,
          provider_id: item.metadata.provider ?? null,
          input_tokens: item.inputTokens,
          output_tokens: item.outputTokens,
          cache_read_tokens: item.cacheReadTokens,
          cache_write_tokens: item.cacheWriteTokens,
        }
      : { reason: item.metadata.reason ?? null }),
  }));
  return jsonResponse({ api_token: token, transactions, next_cursor: page.nextCursor }, 200, {
    "cache-control": "no-store",
  });
}
