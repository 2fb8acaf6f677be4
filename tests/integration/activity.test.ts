import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";
import { type FakeStripe, startFakeStripe } from "../helpers/stripe/fake-stripe";

/**
 * Activity worth reading: route, provider and key per request, kinds in words, receipts of
 * card payments, filters, and a CSV export that a spreadsheet cannot be tricked by.
 */

const webhookSecret = "whsec_test_activity";
let stripe: FakeStripe;
let gateway: TestGateway;

beforeAll(async () => {
  stripe = await startFakeStripe({ webhookSecret });
  gateway = await startTestGateway({
    env: {
      STRIPE_SECRET_KEY: "sk_test_activity",
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PUBLISHABLE_KEY: "pk_test_activity",
      STRIPE_API_BASE: stripe.apiBase,
    },
  });
  stripe.setWebhookUrl(`${gateway.baseUrl}/v1/webhooks/stripe`);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await stripe?.close();
});

interface Row {
  id: string;
  kind: string;
  label: string;
  model?: string | null;
  route?: string | null;
  provider_id?: string | null;
  api_key?: string | null;
  receipt_url?: string | null;
}

async function list(token: string, query = ""): Promise<{ status: number; rows: Row[] }> {
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/transactions${query}`);
  const body = (await response.json()) as { transactions?: Row[] };
  return { status: response.status, rows: body.transactions ?? [] };
}

describe("activity", () => {
  it("names kinds in words, says where each request went and with which key, and links card receipts", async () => {
    const { token } = await gateway.register();
    const checkout = (await (
      await fetch(`${gateway.baseUrl}/proxy/${token}/fund/card`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount_usd: 20 }),
      })
    ).json()) as { session_id: string };
    expect((await stripe.complete(checkout.session_id)).status).toBe(200);
    const key = (await (
      await fetch(`${gateway.baseUrl}/proxy/${token}/keys`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ label: "ci" }),
      })
    ).json()) as { api_key: string };
    expect((await inferenceClient(gateway, token).chat({ maxTokens: 3 })).status).toBe(200);
    expect(
      (await inferenceClient(gateway, key.api_key).chat({ model: "claude-haiku-4-5", maxTokens: 3 })).status,
    ).toBe(200);

    const { rows } = await list(token);
    const card = rows.find((row) => row.kind === "card_credit");
    expect(card?.label).toBe("Card payment");
    expect(card?.receipt_url).toBe(`/proxy/${token}/transactions/${card?.id}/receipt`);
    const receipt = await fetch(`${gateway.baseUrl}${card?.receipt_url}`, { redirect: "manual" });
    expect(receipt.status).toBe(302);
    expect(receipt.headers.get("location")).toMatch(new RegExp(`^${stripe.apiBase}/receipts/ch_`));
    expect((await fetch(receipt.headers.get("location") ?? "")).status).toBe(200);

    const requests = rows.filter((row) => row.kind === "inference");
    expect(requests.map((row) => row.label)).toEqual(["Request", "Request"]);
    expect(requests.find((row) => row.model === "gpt-4o-mini")).toMatchObject({
      route: "centralized",
      provider_id: "openai",
      api_key: null,
    });
    expect(requests.find((row) => row.model === "claude-haiku-4-5")).toMatchObject({ api_key: "ci" });

    // Another token cannot open this token's receipt, nor can a request row be one.
    const other = (await gateway.register()).token;
    expect((await fetch(`${gateway.baseUrl}/proxy/${other}/transactions/${card?.id}/receipt`)).status).toBe(
      404,
    );
    expect(
      (await fetch(`${gateway.baseUrl}/proxy/${token}/transactions/${requests[0]?.id}/receipt`)).status,
    ).toBe(404);
  }, 60_000);

  it("filters by kind, model and route, refuses malformed filters, and exports what they select as CSV", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    await client.chat({ maxTokens: 3 });
    await client.chat({ model: "claude-haiku-4-5", maxTokens: 3 });
    expect((await list(token, "?kind=admin_credit")).rows.map((row) => row.kind)).toEqual(["admin_credit"]);
    expect((await list(token, "?model=claude-haiku-4-5")).rows.map((row) => row.model)).toEqual([
      "claude-haiku-4-5",
    ]);
    expect((await list(token, "?route=centralized")).rows).toHaveLength(2);
    expect((await list(token, "?route=marketplace")).rows).toHaveLength(0);
    for (const query of ["?route=moon", "?kind=DROP%20TABLE", `?model=${"x".repeat(201)}`, "?model=a%0Ab"])
      expect((await list(token, query)).status, query).toBe(400);

    const csv = await fetch(`${gateway.baseUrl}/proxy/${token}/transactions/export?kind=inference`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(
      /^attachment; filename="pod-activity-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "created_at,label,kind,amount_microunits,amount_usd,model,route,provider_id,api_key,input_tokens,output_tokens,request_id,reason",
    );
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).every((line) => /,Request,inference,-\d+,-0\.\d{6},/.test(line))).toBe(true);
  }, 60_000);
});
