import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAccount, getAccountBalance } from "../../../lib/ledger/accounts";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import {
  editConfig,
  enrollAgent,
  podAgent,
  type RunningAgent,
  startAgent,
} from "../../helpers/agent-process";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";

/**
 * A `pod-agent` process selling a model at a fixed price per request: its offer crosses the
 * agent protocol, is capped by the model's per-request centralized price, routed, charged
 * its price whatever the token counts, and paid 80% of it; a caller's request ceiling below
 * the price refuses it before anything is held.
 */
let gateway: TestGateway;
let backend: FakeUpstream;
let agent: RunningAgent | undefined;
let providerId: string;

const model = "fixed-agent-model";
const agentPrice = 100_000;
const marketOnly = { "X-Pod-Routing-Mode": "marketplace-only" };

const admin = (path: string, method: string, body?: unknown) =>
  fetch(`${gateway.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

beforeAll(async () => {
  gateway = await startTestGateway();
  // The model is sold per request centrally (the cap), dearer than the agent.
  await admin(`/v1/admin/catalog/models/${model}`, "PUT", {
    owned_by: "acme",
    context_window: 8_000,
    max_output_tokens: 1_000,
  });
  await admin(`/v1/admin/catalog/models/${model}/prices/openai`, "PUT", {
    upstream_model_id: "gpt-4o-mini",
    request_price_microunits: 120_000,
  });
  backend = await startFakeUpstream("openai", "per-request-backend");
  backend.setModelList({ object: "list", data: [{ id: model, object: "model" }] });
  const enrolled = await enrollAgent(gateway.baseUrl, "fixed host");
  const { configPath } = enrolled;
  providerId = enrolled.providerId;
  expect((await admin(`/v1/admin/hosts/${providerId}/activate`, "POST")).status).toBe(200);
  editConfig(configPath, (config) => {
    config.backends = [{ kind: "llamacpp", url: backend.baseUrl, models: [model] }];
    config.pricing = { models: { [model]: { request_price_microunits: agentPrice } } };
    config.metrics_addr = "";
  });
  expect(await podAgent(["validate", "--config", configPath])).toContain(
    `ok: ${model} on llamacpp ${backend.baseUrl} at ${agentPrice} microunits per request`,
  );
  agent = startAgent(configPath);
  await agent.waitFor(`serving ${model}`);
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await backend?.close();
  if (gateway) expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  await gateway?.close();
});

async function providerEarnings(): Promise<bigint> {
  const id = await ensureAccount(gateway.app.database.db, "provider", providerId);
  return (await getAccountBalance(gateway.app.database.db, id)).balance;
}

const chat = (token: string, content: string, headers: Record<string, string> = {}) =>
  fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...marketOnly, ...headers },
    body: JSON.stringify({ model, messages: [{ role: "user", content }] }),
  });

describe("an agent selling per request", () => {
  it("is listed per request in the feed at its price", async () => {
    const { models } = (await (await fetch(`${gateway.baseUrl}/v1/marketplace/models`)).json()) as {
      models: Array<Record<string, unknown>>;
    };
    expect(models.find((row) => row.model_id === model)).toMatchObject({
      pricing_mode: "per_request",
      request_price_microunits: agentPrice,
      marketplace_provider_count: 1,
    });
  });

  it("is routed, charged its price and paid exactly 80% of it, whatever the token counts", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const earned = await providerEarnings();
    const short = await chat(token, "hi [fake:tokens=1]");
    expect(short.status, await short.clone().text()).toBe(200);
    expect(short.headers.get("x-pod-provider-id")).toBe(providerId);
    expect(short.headers.get("x-pod-cost-microunits")).toBe(String(agentPrice));
    await short.text();
    const long = await chat(token, `${"a long question ".repeat(300)} [fake:tokens=400]`);
    expect(long.status).toBe(200);
    expect(long.headers.get("x-pod-cost-microunits")).toBe(String(agentPrice));
    await long.text();
    await expect.poll(providerEarnings).toBe(earned + 2n * 80_000n);
    expect(await gateway.balanceOf(token)).toMatchObject({ balance: 800_000n, held: 0n });
  });

  it("a request ceiling below the price, or token ceilings alone, refuse it before anything is held", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const jobs = backend.requests.length;
    const below = await chat(token, "hi", { "X-Pod-Max-Price-Request": String(agentPrice - 1) });
    expect(below.status).toBe(402);
    expect(await below.json()).toMatchObject({
      error: { type: "no_provider_at_price", details: { suggested_min_request_price: agentPrice } },
    });
    const tokensOnly = await chat(token, "hi", { "X-Pod-Max-Price-Output": "100000000" });
    expect(tokensOnly.status).toBe(402);
    expect(backend.requests.length).toBe(jobs);
    expect(await gateway.balanceOf(token)).toMatchObject({ balance: 1_000_000n, held: 0n });
    const at = await chat(token, "hi", { "X-Pod-Max-Price-Request": String(agentPrice) });
    expect(at.status).toBe(200);
    expect(at.headers.get("x-pod-provider-id")).toBe(providerId);
  });
});
