import { activityFilterSchema, type TransactionsPage } from "@pod-gateway/contracts/activity";
import { listActivity } from "../../activity/queries";
import { transactionRow, transactionsCsv } from "../../activity/transaction-rows";
import { badRequest } from "../../errors/gateway-error";
import type { ApiRequest } from "../../http/api-request";
import { BufferedResponse } from "../../http/buffered-response";
import { jsonResponse } from "../../http/responses";
import { writeQueued } from "../../receipts/stored-receipt";
import { activityKeyFilter } from "../../tokens/key-scopes";
import type { ApiCall } from "../route-definition";

const maxLimit = 200;
/** The most rows one export carries (newest first); older ones page with `before`. */
const maxExportRows = 10_000;

function filtersOf(request: ApiRequest) {
  const params = new URL(request.url).searchParams;
  const parsed = activityFilterSchema.safeParse({
    kind: params.get("kind") ?? undefined,
    model: params.get("model") ?? undefined,
    route: params.get("route") ?? undefined,
  });
  if (!parsed.success)
    throw badRequest(
      `filters: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
    );
  const before = params.get("before");
  if (before !== null && !/^[0-9]{1,19}$/.test(before))
    throw badRequest("before must be a cursor from next_cursor");
  return {
    params,
    before: before === null ? undefined : BigInt(before),
    ...(parsed.data.kind ? { kinds: [parsed.data.kind] } : {}),
    model: parsed.data.model,
    route: parsed.data.route,
  };
}

/**
 * GET /proxy/<token>/transactions – the token's credits and debits, newest first, with usage,
 * route, provider and key per request; filtered by `kind`, `model` and `route`. A key without
 * the `read` scope sees its own requests only.
 */
export async function listTransactions(call: ApiCall<"token">): Promise<Response> {
  const { app, request, principal: record } = call;
  const token = call.params.token ?? "";
  const { params, ...filters } = filtersOf(request);
  const limit = Number(params.get("limit") ?? "50");
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit)
    throw badRequest(`limit must be an integer from 1 to ${maxLimit}`);
  await writeQueued(app);
  const page = await listActivity(app.database.db, record.accountId, {
    ...filters,
    limit,
    apiKeyId: activityKeyFilter(record),
  });
  const body: TransactionsPage = {
    api_token: token,
    transactions: page.items.map((item) => transactionRow(item, `/proxy/${token}/transactions`)),
    next_cursor: page.nextCursor,
  };
  return jsonResponse(body, 200, { "cache-control": "no-store" });
}

/** GET /proxy/<token>/transactions/export – the same list (same filters) as CSV, up to 10,000 rows. */
export async function exportTransactions(call: ApiCall<"token">): Promise<Response> {
  const { app, request, principal: record } = call;
  const token = call.params.token ?? "";
  const { params: _params, ...filters } = filtersOf(request);
  await writeQueued(app);
  const page = await listActivity(app.database.db, record.accountId, {
    ...filters,
    limit: maxExportRows,
    apiKeyId: activityKeyFilter(record),
  });
  const csv = transactionsCsv(page.items.map((item) => transactionRow(item, `/proxy/${token}/transactions`)));
  return new BufferedResponse(csv, {
    status: 200,
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="pod-activity-${new Date().toISOString().slice(0, 10)}.csv"`,
      "cache-control": "no-store",
    },
  });
}
