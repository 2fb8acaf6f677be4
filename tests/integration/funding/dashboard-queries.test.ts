import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chartDays,
  getBalanceSummary,
  getSpendByDayAndModel,
  getSpendByModel,
  getSpendTotals,
  listActivity,
} from "../../../lib/activity/queries";
import { usageRecords } from "../../../lib/db/schema";
import { findToken } from "../../../lib/tokens/find-token";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

async function chat(token: string, model: string): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model,
      max_tokens: 20,
      messages: [{ role: "user", content: "hi [fake:tokens=5]" }],
    }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

describe("dashboard queries", () => {
  it("balance, spend today/this month, per day and model, and paged activity agree with what was billed", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const record = await findToken(gateway.app.database.db, token);
    if (!record) throw new Error("no token");
    const db = gateway.app.database.db;
    await chat(token, "gpt-4o-mini");
    await chat(token, "gpt-4o-mini");
    await chat(token, "claude-haiku-4-5");

    const now = new Date();
    // An older request, two days back, on another model (as a chart sees history).
    const twoDaysAgo = new Date(now.getTime() - 2 * 86_400_000);
    await db.insert(usageRecords).values({
      requestId: "req_history_1",
      accountId: record.accountId,
      model: "gpt-4o",
      route: "centralized",
      providerId: "openai",
      inputTokens: 10,
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costMicrounits: 777n,
      outcome: "complete",
      createdAt: twoDaysAgo,
    });

    const balance = await getBalanceSummary(db, record.accountId);
    const spent = 5_000_000n - balance.balance;
    expect(spent).toBeGreaterThan(0n);
    expect(balance).toMatchObject({ held: 0n, available: balance.balance, owed: 0n });

    const totals = await getSpendTotals(db, record.accountId, now);
    expect(totals.today).toBe(spent);
    expect(totals.requestsToday).toBe(3);
    const sameMonth = twoDaysAgo.getUTCMonth() === now.getUTCMonth();
    expect(totals.thisMonth).toBe(sameMonth ? spent + 777n : spent);

    const perDay = await getSpendByDayAndModel(db, record.accountId, 7, now);
    const today = now.toISOString().slice(0, 10);
    expect(perDay.filter((row) => row.day === today).map((row) => row.model)).toEqual([
      "claude-haiku-4-5",
      "gpt-4o-mini",
    ]);
    expect(perDay.find((row) => row.model === "gpt-4o")).toMatchObject({
      day: twoDaysAgo.toISOString().slice(0, 10),
      cost: 777n,
      requests: 1,
    });
    expect(perDay.filter((row) => row.day === today).reduce((sum, row) => sum + row.cost, 0n)).toBe(spent);
    const byModel = await getSpendByModel(db, record.accountId, 7, now);
    expect(byModel.find((row) => row.model === "gpt-4o-mini")?.requests).toBe(2);
    expect(chartDays(7, now)).toHaveLength(7);
    expect(chartDays(7, now).at(-1)).toBe(today);

    // Paging walks every entry once: 3 inference debits and the credit.
    const first = await listActivity(db, record.accountId, { limit: 2 });
    expect(first.items.map((item) => item.kind)).toEqual(["inference", "inference"]);
    const second = await listActivity(db, record.accountId, {
      limit: 2,
      before: BigInt(first.nextCursor ?? "0"),
    });
    expect(second.items.map((item) => item.kind)).toEqual(["inference", "admin_credit"]);
    expect(second.items[0]?.inputTokens).toBeGreaterThan(0);
    const credits = await listActivity(db, record.accountId, {
      limit: 10,
      kinds: ["admin_credit", "card_credit"],
    });
    expect(credits.items).toHaveLength(1);
    expect(credits.items[0]?.amount).toBe(5_000_000n);

    // The HTTP view pages the same data.
    const http = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/transactions?limit=3`)).json()) as {
      transactions: { kind: string }[];
      next_cursor: string | null;
    };
    expect(http.transactions.map((item) => item.kind)).toEqual(["inference", "inference", "inference"]);
    expect(http.next_cursor).not.toBeNull();
    const usage = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/usage?days=7`)).json()) as {
      usdc_balance: number;
      spend: { today_microunits: number; requests_today: number };
      days: string[];
      by_day: { day: string; model: string; cost_microunits: number }[];
      by_model: { model: string }[];
    };
    expect(usage.usdc_balance).toBe(Number(balance.available));
    expect(usage.spend).toMatchObject({ today_microunits: Number(spent), requests_today: 3 });
    expect(usage.days).toEqual(chartDays(7, now));
    expect(usage.by_day).toContainEqual({
      day: twoDaysAgo.toISOString().slice(0, 10),
      model: "gpt-4o",
      cost_microunits: 777,
      requests: 1,
    });
    expect((await fetch(`${gateway.baseUrl}/proxy/${token}/usage?days=0`)).status).toBe(400);
  });
});
