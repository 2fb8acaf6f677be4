import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";

/**
 * A model the operator prices at 0 is free: served (on any balance, even none), charged 0,
 * listed as free. Before, every request to it was a 402 "needs at least 0".
 */
const modes = [
  ["balance leases", true],
  ["a hold row per request", false],
] as const;

describe.each(modes)("a model priced at 0 (%s)", (_name, lease) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ lease });
    for (const provider of ["openai", "openrouter"]) {
      const response = await fetch(
        `${gateway.baseUrl}/v1/admin/catalog/models/gpt-4o-mini/prices/${provider}`,
        {
          method: "PUT",
          headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ input_per_1m: 0, output_per_1m: 0, actor: "free-test" }),
        },
      );
      expect(response.status).toBe(200);
    }
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  const client = (token: string) =>
    new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });

  it("is served and charged 0, streamed or not, on a funded balance and on none", async () => {
    const funded = await gateway.createFundedToken(1_000_000n);
    const { token: empty } = await gateway.register();
    for (const token of [funded, empty]) {
      const { data, response } = await client(token)
        .chat.completions.create({
          model: "gpt-4o-mini",
          max_tokens: 50,
          messages: [{ role: "user", content: "hi [fake:tokens=5]" }],
        })
        .withResponse();
      expect(data.choices[0]?.message.content).toBeTruthy();
      expect(response.headers.get("x-pod-cost-microunits")).toBe("0");
      const stream = await client(token).chat.completions.create({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "stream [fake:tokens=5]" }],
      });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      expect(text.length).toBeGreaterThan(0);
    }
    await gateway.app.leases?.returnAll();
    expect((await gateway.balanceOf(funded)).balance).toBe(1_000_000n);
    expect((await gateway.balanceOf(empty)).balance).toBe(0n);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  }, 60_000);

  it("is served on a key whose limit is spent, and listed as free", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const created = await fetch(`${gateway.baseUrl}/proxy/${token}/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ label: "tiny", limit: { amount_microunits: 1, period: "day" } }),
    });
    const { api_key } = (await created.json()) as { api_key: string };
    const answer = await client(api_key).chat.completions.create({
      model: "gpt-4o-mini",
      max_tokens: 20,
      messages: [{ role: "user", content: "hi [fake:tokens=3]" }],
    });
    expect(answer.choices.length).toBe(1);
    // A priced model on the same key is still refused by its limit.
    const refused = await client(api_key)
      .chat.completions.create({
        model: "gpt-4.1-mini",
        max_tokens: 20,
        messages: [{ role: "user", content: "hi" }],
      })
      .catch((error: unknown) => error);
    expect((refused as { status?: number }).status).toBe(402);

    const models = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/v1/models`)).json()) as {
      data: Array<{ id: string; free: boolean; pricing: { input_per_1m: number | null } }>;
    };
    const free = models.data.find((model) => model.id === "gpt-4o-mini");
    expect(free).toMatchObject({ free: true, pricing: { input_per_1m: 0 } });
    expect(models.data.find((model) => model.id === "gpt-4.1-mini")?.free).toBe(false);
  }, 60_000);
});
