import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";

/**
 * The catalog is data: seeded offline from the shipped dataset, listed with client metadata,
 * priced and edited by the operator without a deploy (every change logged), refreshed from an
 * upstream's own model list. A price change applies to the next request, never to one held.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const admin = (path: string, method: string, body?: unknown) =>
  fetch(`${gateway.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

interface ListedModel {
  id: string;
  kind: string;
  context_length: number;
  capabilities: Record<string, boolean>;
  pricing: { input_per_1m: number | null; output_per_1m: number | null; per_image?: number | null };
  provider_count: number;
}

async function listModels(token: string, baseUrl = gateway.baseUrl): Promise<ListedModel[]> {
  const response = await fetch(`${baseUrl}/proxy/${token}/v1/models`);
  return ((await response.json()) as { data: ListedModel[] }).data;
}

interface Change {
  actor: string;
  model: string;
  provider: string | null;
  action: string;
  before: Record<string, string> | null;
  after: Record<string, string> | null;
}

async function changesOf(model: string): Promise<Change[]> {
  const response = await admin(`/v1/admin/catalog/changes?model=${model}`, "GET");
  return ((await response.json()) as { changes: Change[] }).changes;
}

describe("catalog seeded offline from the shipped dataset", () => {
  it("lists the dataset's models for the configured upstreams, with client metadata", async () => {
    const token = await gateway.createFundedToken(1_000n);
    const models = await listModels(token);
    // openai, anthropic and openrouter are configured: the dataset's paid rows for them.
    expect(models.length).toBeGreaterThan(300);
    const ids = models.map((model) => model.id);
    for (const id of ["gpt-5", "o3", "claude-opus-4.1", "claude-sonnet-4-5", "gemini-2.5-pro", "kimi-k2"])
      expect(ids).toContain(id);
    // Together and Groq have no key here, so nothing only they sell is listed.
    expect(ids).not.toContain("deepseek-v3-1");
    const sonnet = models.find((model) => model.id === "claude-sonnet-4-6");
    expect(sonnet).toMatchObject({
      kind: "chat",
      // OpenRouter prices it higher past 200k tokens (models.dev's context_over_200k): it is sold
      // up to the context its one stored price covers, from either provider.
      context_length: 200_000,
      capabilities: { tools: true, vision: true, reasoning: true },
      pricing: { input_per_1m: 3_000_000, output_per_1m: 15_000_000 },
      provider_count: 2,
    });
    const market = (await (await fetch(`${gateway.baseUrl}/v1/marketplace/models`)).json()) as {
      models: Array<{ model_id: string }>;
    };
    expect(market.models.map((model) => model.model_id).sort()).toEqual([...ids].sort());
  });

  it("resolves vendor prefixes, dated snapshots and dashed versions of dataset models", async () => {
    const { catalog } = gateway.app;
    expect(catalog.resolve("claude-sonnet-4-5-20250929")?.id).toBe("claude-sonnet-4-5");
    expect(catalog.resolve("anthropic/claude-sonnet-4.5")?.id).toBe("claude-sonnet-4-5");
    expect(catalog.resolve("claude-opus-4-1")?.id).toBe("claude-opus-4.1");
  });
});

/** The lowest of some prices, as a listing shows it (a JSON number). */
function lowest(values: bigint[]): number {
  let low = values[0] ?? 0n;
  for (const value of values) if (value < low) low = value;
  return Number(low);
}

describe("a fresh start offline with OpenRouter, Together, OpenAI and Anthropic", () => {
  it("lists several hundred models with context, pricing and capabilities, capped at the cheapest price", async () => {
    const fresh = await startTestGateway({
      extraUpstreams: ["together"],
      env: { TOGETHER_API_KEY: "sk-test-together" },
    });
    try {
      const token = await fresh.createFundedToken(1_000n);
      const models = await listModels(token, fresh.baseUrl);
      expect(models.length).toBeGreaterThan(300);
      // Nothing was fetched to build it: no upstream was asked for its model list.
      for (const upstream of [fresh.openai, fresh.openrouter, fresh.anthropic, fresh.extraUpstreams.together])
        expect(upstream?.requests.filter((request) => request.path.endsWith("/models"))).toEqual([]);
      for (const model of models) {
        // Image models are sold per image and take a prompt, not a context of tokens.
        if (model.kind === "image") {
          expect(model.pricing.per_image, model.id).toBeGreaterThan(0);
          continue;
        }
        expect(model.context_length, model.id).toBeGreaterThan(0);
        expect(model.pricing.input_per_1m, model.id).not.toBeNull();
        expect(typeof model.capabilities.tools, model.id).toBe("boolean");
      }
      const byId = new Map(models.map((model) => [model.id, model]));
      // Sold by Together and OpenRouter at different prices: listed at the cheaper one (Together's).
      const { catalog } = fresh.app;
      const qwen = catalog.resolve("Qwen/Qwen3.7-Max");
      if (!qwen) throw new Error("Qwen3.7-Max is not in the catalog");
      const prices = catalog.pricesFor(qwen);
      expect(prices.map((price) => price.provider).sort()).toEqual(["openrouter", "together"]);
      expect(byId.get(qwen.id)).toMatchObject({
        provider_count: 2,
        pricing: {
          input_per_1m: lowest(prices.map((price) => price.inputPer1m)),
          output_per_1m: lowest(prices.map((price) => price.outputPer1m)),
        },
      });
      expect(byId.get(qwen.id)?.pricing.input_per_1m).toBe(1_250_000);
      // Every model is listed at its cheapest centralized price on each axis.
      for (const model of catalog.models) {
        const listed = byId.get(model.id);
        const rates = catalog.pricesFor(model);
        if (!listed || rates.length === 0 || model.kind === "image") continue;
        expect(listed.pricing.input_per_1m, model.id).toBe(lowest(rates.map((price) => price.inputPer1m)));
        expect(listed.pricing.output_per_1m, model.id).toBe(lowest(rates.map((price) => price.outputPer1m)));
      }
    } finally {
      await fresh.close();
    }
    // A gateway of its own starts inside this test.
  }, 180_000);
});

describe("operator edits", () => {
  it("a price change applies to the next request and is logged with the old and new price", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const set = await admin("/v1/admin/catalog/models/gpt-4o-mini/prices/openai", "PUT", {
      input_per_1m: 1_000_000,
      output_per_1m: "2000000",
      actor: "alice",
    });
    expect(set.status).toBe(200);
    const client = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const { data, response } = await client.chat.completions
      .create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi [fake:tokens=3]" }] },
        { headers: { "x-pod-providers": "openai" } },
      )
      .withResponse();
    const usage = data.usage;
    if (!usage) throw new Error("usage missing");
    const expected = Math.ceil((usage.prompt_tokens * 1_000_000 + usage.completion_tokens * 2_000_000) / 1e6);
    expect(response.headers.get("x-pod-cost-microunits")).toBe(String(expected));
    const [latest] = await changesOf("gpt-4o-mini");
    expect(latest).toMatchObject({
      actor: "operator:alice",
      provider: "openai",
      action: "price-changed",
      before: { input_per_1m: "150000", output_per_1m: "600000" },
      after: { input_per_1m: "1000000", output_per_1m: "2000000" },
    });
  });

  it("a request already held keeps its price when the price changes mid-stream", async () => {
    const token = await gateway.createFundedToken(10_000_000n);
    const client = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    await admin("/v1/admin/catalog/models/gpt-4.1-mini/prices/openai", "PUT", {
      input_per_1m: 400_000,
      output_per_1m: 1_600_000,
    });
    const stream = await client.chat.completions.create(
      {
        model: "gpt-4.1-mini",
        messages: [{ role: "user", content: "slow [fake:tokens=6] [fake:slow=40]" }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { headers: { "x-pod-providers": "openai" } },
    );
    let changed = false;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      if (!changed) {
        changed = true;
        // Fifty times dearer while the request is in flight.
        await admin("/v1/admin/catalog/models/gpt-4.1-mini/prices/openai", "PUT", {
          input_per_1m: 20_000_000,
          output_per_1m: 80_000_000,
        });
      }
      usage = chunk.usage ?? usage;
    }
    if (!usage) throw new Error("usage missing");
    const atOldPrice = Math.ceil((usage.prompt_tokens * 400_000 + usage.completion_tokens * 1_600_000) / 1e6);
    await expect.poll(async () => (await gateway.balanceOf(token)).held).toBe(0n);
    expect((await gateway.balanceOf(token)).balance).toBe(10_000_000n - BigInt(atOldPrice));
  });

  it("adds a model, disables it (gone from listings, a 404 to requests) and enables it again", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const added = await admin("/v1/admin/catalog/models/house-model", "PUT", {
      owned_by: "acme",
      context_window: 32_000,
      max_output_tokens: 4_000,
      aliases: ["acme/house-model"],
      supports_tools: false,
    });
    expect(added.status).toBe(201);
    await admin("/v1/admin/catalog/models/house-model/prices/openai", "PUT", {
      upstream_model_id: "gpt-4o-mini",
      input_per_1m: 10_000,
      output_per_1m: 20_000,
    });
    const ask = (body: Record<string, unknown> = {}) =>
      fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "acme/house-model",
          messages: [{ role: "user", content: "hi" }],
          ...body,
        }),
      });
    expect((await ask()).status).toBe(200);
    expect(gateway.openai.requests.at(-1)?.body.model).toBe("gpt-4o-mini");
    // Tools to a model the operator marked without tool calling: a 400 before any upstream call.
    const calls = gateway.openai.requests.length;
    const withTools = await ask({
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
    });
    expect(withTools.status).toBe(400);
    expect(await withTools.text()).toContain("does not support tool calling");
    expect(gateway.openai.requests.length).toBe(calls);

    await admin("/v1/admin/catalog/models/house-model", "PUT", { disabled: true });
    expect((await listModels(token)).map((model) => model.id)).not.toContain("house-model");
    expect((await ask()).status).toBe(404);
    await admin("/v1/admin/catalog/models/house-model", "PUT", { disabled: false });
    expect((await ask()).status).toBe(200);
    expect((await changesOf("house-model")).map((change) => change.action)).toEqual([
      "model-enabled",
      "model-disabled",
      "price-added",
      "model-added",
    ]);
  });

  it.each([
    ["a negative price", { input_per_1m: -1, output_per_1m: 1 }],
    ["a price past any real one", { input_per_1m: "99999999999999", output_per_1m: 1 }],
    ["a fractional price", { input_per_1m: 1.5, output_per_1m: 1 }],
    ["an unknown field", { input_per_1m: 1, output_per_1m: 1, discount: 50 }],
  ])("refuses %s with a 400 and changes nothing", async (_name, body) => {
    const before = await changesOf("gpt-4o");
    const response = await admin("/v1/admin/catalog/models/gpt-4o/prices/openai", "PUT", body);
    expect(response.status).toBe(400);
    expect(await changesOf("gpt-4o")).toEqual(before);
  });

  it("refuses every catalog edit without the admin token", async () => {
    for (const [path, method] of [
      ["/v1/admin/catalog/models/gpt-4o/prices/openai", "PUT"],
      ["/v1/admin/catalog/models/gpt-4o", "PUT"],
      ["/v1/admin/catalog/changes", "GET"],
      ["/v1/admin/catalog/refresh", "POST"],
    ] as const) {
      const response = await fetch(`${gateway.baseUrl}${path}`, {
        method,
        headers: { authorization: "Bearer not-the-admin", "content-type": "application/json" },
        ...(method === "PUT" ? { body: JSON.stringify({ input_per_1m: 0, output_per_1m: 0 }) } : {}),
      });
      expect(response.status, path).toBe(401);
    }
  });
});

describe("refresh from an upstream's own model list", () => {
  it("adds a model and updates a price from OpenRouter's /models; an operator's price stays", async () => {
    await admin("/v1/admin/catalog/models/gpt-4o/prices/openrouter", "PUT", {
      input_per_1m: 2_000_000,
      output_per_1m: 9_000_000,
    });
    const row = (id: string, prompt: string, completion: string) => ({
      id,
      name: id,
      context_length: 64_000,
      pricing: { prompt, completion },
      architecture: { input_modalities: ["text"], output_modalities: ["text"] },
      top_provider: { max_completion_tokens: 8_000 },
      supported_parameters: ["tools", "response_format"],
    });
    gateway.openrouter.setModelList({
      data: [
        row("acme/rocket-1", "0.0000005", "0.0000015"),
        row("openai/gpt-4o-mini", "0.0000002", "0.0000007"),
        row("openai/gpt-4o", "0.000005", "0.00002"),
        row("openrouter/auto", "-1", "-1"),
        row("acme/free-thing:free", "0", "0"),
      ],
    });
    const response = await admin("/v1/admin/catalog/refresh", "POST");
    expect(response.status).toBe(200);
    const report = (await response.json()) as { models_added: number; prices_changed: number };
    expect(report.models_added).toBe(1);
    expect(report.prices_changed).toBe(1);
    const { catalog } = gateway.app;
    const rocket = catalog.resolve("acme/rocket-1");
    expect(rocket?.id).toBe("rocket-1");
    expect(rocket?.prices).toEqual([
      expect.objectContaining({ inputPer1m: 500_000n, outputPer1m: 1_500_000n }),
    ]);
    const mini = catalog.resolve("gpt-4o-mini");
    expect(mini?.prices.find((price) => price.provider === "openrouter")).toMatchObject({
      inputPer1m: 200_000n,
      outputPer1m: 700_000n,
    });
    // Pinned by the operator: the list's price is ignored.
    expect(catalog.resolve("gpt-4o")?.prices.find((price) => price.provider === "openrouter")).toMatchObject({
      inputPer1m: 2_000_000n,
      outputPer1m: 9_000_000n,
    });
    expect(catalog.resolve("auto")).toBeUndefined();
    expect(catalog.resolve("free-thing:free")).toBeUndefined();
    const [change] = await changesOf("gpt-4o-mini");
    expect(change).toMatchObject({
      actor: "operator-refresh:openrouter",
      provider: "openrouter",
      action: "price-changed",
      after: { input_per_1m: "200000", output_per_1m: "700000" },
    });
  });

  it("a broken or unreachable list changes nothing and says so", async () => {
    gateway.openrouter.setModelList({ data: "not a list" });
    const before = gateway.app.catalog.models.length;
    const response = await admin("/v1/admin/catalog/refresh", "POST");
    const report = (await response.json()) as { sources: Array<{ source: string; error?: string }> };
    expect(report.sources).toEqual([
      { source: "openrouter", error: expect.stringContaining("did not parse") },
    ]);
    expect(gateway.app.catalog.models.length).toBe(before);
  });
});
