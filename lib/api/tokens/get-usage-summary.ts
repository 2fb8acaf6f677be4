import {
  chartDays,
  getBalanceSummary,
  getSpendByDayAndModel,
  getSpendByModel,
  getSpendTotals,
} from "../../activity/queries";
import { badRequest } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { activityKeyFilter } from "../../tokens/key-scopes";
import { correctForLease } from "../../tokens/token-balance";
import type { ApiCall } from "../route-definition";

/**
 * GET /proxy/<token>/usage?days=30 – the dashboard's home figures: balance, held, spend
 * today and this month, and spend per UTC day and per model. Amounts in microunits.
 */
export async function getUsageSummary(call: ApiCall<"token">): Promise<Response> {
  const { app, request, principal: record } = call;
  const days = Number(new URL(request.url).searchParams.get("days") ?? "30");
  if (!Number.isInteger(days) || days < 1 || days > 366)
    throw badRequest("days must be an integer from 1 to 366");
  const db = app.database.db;
  const now = new Date();
  // Everything this process settled is written first, so the figures include the last response.
  await app.leases?.flush();
  // A key without the `read` scope sees the balance it spends and its own requests only.
  const keyId = activityKeyFilter(record);
  const [summary, totals, perDay, perModel] = await Promise.all([
    getBalanceSummary(db, record.accountId),
    getSpendTotals(db, record.accountId, now, keyId),
    getSpendByDayAndModel(db, record.accountId, days, now, keyId),
    getSpendByModel(db, record.accountId, days, now, keyId),
  ]);
  const balance = correctForLease(app, record.accountId, summary);
  return jsonResponse(
    {
      usdc_balance: Number(balance.available),
      balance_microunits: Number(balance.balance),
      held_microunits: Number(balance.held),
      receivable_microunits: Number(balance.owed),
      spend: {
        today_microunits: Number(totals.today),
        this_month_microunits: Number(totals.thisMonth),
        requests_today: totals.requestsToday,
        requests_this_month: totals.requestsThisMonth,
      },
      days: chartDays(days, now),
      by_day: perDay.map((row) => ({
        day: row.day,
        model: row.model,
        cost_microunits: Number(row.cost),
        requests: row.requests,
      })),
      by_model: perModel.map((row) => ({
        model: row.model,
        cost_microunits: Number(row.cost),
        requests: row.requests,
        input_tokens: row.inputTokens,
        output_tokens: row.outputTokens,
      })),
    },
    200,
    { "cache-control": "no-store" },
  );
}
