import Anthropic from "@anthropic-ai/sdk";
import { modelEndpointsResponseSchema } from "@pod-gateway/contracts/model-endpoints";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { performanceKey } from "../../../lib/routing/source-performance";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";

/**
 * OpenRouter's request shapes through the official SDKs (extra body fields, as Python's
 * `extra_body`): two fake sources of gpt-4o-mini, OpenAI cheap and slow (10 ms a token),
 * OpenRouter three times dearer and fast (1 ms a token), measured by the gateway on warm-up
 * traffic. Each test would fail if its field were ignored.
 */
let gateway: TestGateway;
let token: string;
const slowTokenMs = 10;

type Extra = Record<string, unknown>;

const openai = () =>
  new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });

async function chat(extra: Extra, prompt = "hi [fake:tokens=20]", headers: Record<string, string> = {}) {
  const { data, response } = await openai()
    .chat.completions.create(
      {
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: prompt }],
        max_tokens: 50,
        ...extra,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming,
      { headers },
    )
    .withResponse();
  return { data, served: response.headers.get("x-pod-provider-id"), response };
}

/** What the client saw of each source: tokens and the time from its first chunk to its last. */
const observed = new Map<string, { tokens: number; ms: number }>();

async function streamed(provider: string) {
  const stream = await openai().chat.completions.create({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "warm up [fake:tokens=20]" }],
    max_tokens: 50,
    stream: true,
    provider: { only: [provider] },
  } as OpenAI.ChatCompletionCreateParamsStreaming);
  let first: number | undefined;
  let last = 0;
  for await (const _chunk of stream) {
    last = performance.now();
    first ??= last;
  }
  const seen = observed.get(provider) ?? { tokens: 0, ms: 0 };
  observed.set(provider, { tokens: seen.tokens + 20, ms: seen.ms + (last - (first ?? last)) });
}

async function chatError(extra: Extra, prompt?: string, headers?: Record<string, string>) {
  const error = await chat(extra, prompt, headers).catch((caught: unknown) => caught);
  if (!(error instanceof OpenAI.APIError)) throw new Error(`expected an API error, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  gateway = await startTestGateway();
  token = await gateway.createFundedToken(50_000_000n);
  const response = await fetch(`${gateway.baseUrl}/v1/admin/catalog/models/gpt-4o-mini/prices/openrouter`, {
    method: "PUT",
    headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ input_per_1m: 450_000, output_per_1m: 1_800_000, actor: "test" }),
  });
  if (!response.ok) throw new Error(`price edit failed: ${response.status}`);
  gateway.openai.setTokenDelay(slowTokenMs);
  gateway.openrouter.setTokenDelay(1);
  // Enough traffic on each source for its figures to count as measured (and replace none: no host here).
  for (let index = 0; index < 25; index += 1) {
    await streamed("openai");
    await streamed("openrouter");
  }
}, 120_000);
afterAll(async () => {
  await gateway.close();
});

describe("provider preferences", () => {
  it("measures each source's speed from real traffic: within 10% of what the client saw", () => {
    const figures = (provider: string) =>
      gateway.app.routing.performance.figures(performanceKey(provider, "gpt-4o-mini"));
    const slow = figures("openai");
    expect(slow.measured).toBe(true);
    expect(slow.successRate).toBe(1);
    // The fake sleeps 10 ms a token (100 tokens/s at most; a loaded machine sleeps longer).
    const seen = observed.get("openai") ?? { tokens: 0, ms: 1 };
    const clientRate = (seen.tokens * 1000) / seen.ms;
    expect(clientRate).toBeLessThanOrEqual(100);
    expect(Math.abs((slow.tokensPerSecond ?? 0) - clientRate) / clientRate).toBeLessThan(0.1);
    expect(figures("openrouter").tokensPerSecond).toBeGreaterThan(2 * (slow.tokensPerSecond ?? 0));
  });

  it("by default the cheap source serves: three times the price outweighs five times the speed", async () => {
    expect((await chat({})).served).toBe("openai");
    expect((await chat({ provider: { sort: "price" } })).served).toBe("openai");
  });

  it('sort: "throughput" picks the faster source, the object form too', async () => {
    expect((await chat({ provider: { sort: "throughput" } })).served).toBe("openrouter");
    expect((await chat({ provider: { sort: { by: "throughput" } } })).served).toBe("openrouter");
  });

  it("only and ignore filter the sources", async () => {
    expect((await chat({ provider: { only: ["OpenRouter"] } })).served).toBe("openrouter");
    expect((await chat({ provider: { ignore: ["openai"] } })).served).toBe("openrouter");
    const none = await chatError({ provider: { only: ["deepinfra"] } });
    expect(none.status).toBe(503);
    expect(none.message).toContain("only: deepinfra");
  });

  it("order puts a source first; allow_fallbacks: false stops after the first", async () => {
    expect((await chat({ provider: { order: ["openrouter", "openai"] } })).served).toBe("openrouter");
    const failing = "hi [fake:fail=fake-openai] [fake:tokens=3]";
    const before = gateway.openrouter.requests.length;
    const stopped = await chatError({ provider: { allow_fallbacks: false } }, failing);
    expect(stopped.status).toBe(502);
    expect(gateway.openrouter.requests.length).toBe(before);
    expect((await chat({ provider: { allow_fallbacks: true } }, failing)).served).toBe("openrouter");
  });

  it("max_price refuses dearer sources, and the stricter of header and body wins", async () => {
    // $0.20 / $1 per 1M tokens admits OpenAI (0.15 / 0.60), not OpenRouter (0.45 / 1.80): even sorted by speed.
    expect(
      (await chat({ provider: { sort: "throughput", max_price: { prompt: 0.2, completion: 1 } } })).served,
    ).toBe("openai");
    const refused = await chatError({ provider: { max_price: { prompt: 0.1 } } });
    expect(refused.status).toBe(402);
    const header = await chatError({ provider: { max_price: { prompt: 10 } } }, undefined, {
      "X-Pod-Max-Price-Input": "100000",
    });
    expect(header.status).toBe(402);
  });

  it("models falls through to the second model when every source of the first fails", async () => {
    const before = gateway.anthropic.requests.length;
    const { data, served } = await chat(
      { models: ["gpt-4o-mini", "claude-haiku-4-5"] },
      "hi [fake:fail=fake-openai] [fake:fail=fake-openrouter] [fake:tokens=3]",
    );
    expect(served).toBe("anthropic");
    expect(data.choices[0]?.message.content).toBeTruthy();
    expect(gateway.anthropic.requests.slice(before)[0]?.body.model).toBe("claude-haiku-4-5");
  });

  it("never forwards provider, models or route upstream", async () => {
    await chat({ provider: { only: ["openai"] }, models: ["gpt-4o-mini"], route: "fallback" });
    const body = gateway.openai.requests.at(-1)?.body ?? {};
    expect(Object.keys(body)).not.toEqual(expect.arrayContaining(["provider"]));
    expect(body.provider).toBeUndefined();
    expect(body.models).toBeUndefined();
    expect(body.route).toBeUndefined();
  });

  it("guarantees no source declares are refused with a 503 that names them, never ignored", async () => {
    const quantized = await chatError({ provider: { quantizations: ["fp8"] } });
    expect(quantized.status).toBe(503);
    expect(quantized.message).toContain("quantizations: fp8");
    const unknown = await chatError({ provider: { zdr: true } });
    expect(unknown.status).toBe(400);
  });

  it("works on the Anthropic dialect and the Responses API", async () => {
    const anthropic = new Anthropic({
      baseURL: `${gateway.baseUrl}/proxy/${token}`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const { response } = await anthropic.messages
      .create({
        model: "gpt-4o-mini",
        max_tokens: 20,
        messages: [{ role: "user", content: "hi [fake:tokens=3]" }],
        provider: { only: ["openrouter"] },
      } as Anthropic.MessageCreateParamsNonStreaming)
      .withResponse();
    expect(response.headers.get("x-pod-provider-id")).toBe("openrouter");
    const responses = await openai()
      .responses.create({
        model: "gpt-4o-mini",
        input: "hi [fake:tokens=3]",
        provider: { sort: "throughput" },
      } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .withResponse();
    expect(responses.response.headers.get("x-pod-provider-id")).toBe("openrouter");
    expect(responses.response.headers.get("x-pod-route")).toBe("centralized");
  });

  it("GET /v1/models/{id}/endpoints lists every source with its price and measured figures; the feed shows the same", async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/models/gpt-4o-mini/endpoints`);
    expect(response.status).toBe(200);
    const { data } = modelEndpointsResponseSchema.parse(await response.json());
    expect(data.id).toBe("gpt-4o-mini");
    const byTag = new Map(data.endpoints.map((endpoint) => [endpoint.tag, endpoint]));
    const slow = byTag.get("openai");
    const fast = byTag.get("openrouter");
    expect(slow?.route).toBe("centralized");
    expect(slow?.pricing).toMatchObject({ prompt: "0.00000015", completion: "0.0000006", request: "0" });
    expect(fast?.input_per_1m).toBe(450_000);
    expect(slow?.performance.measured).toBe(true);
    const measured = gateway.app.routing.performance.figures(performanceKey("openai", "gpt-4o-mini"));
    expect(slow?.performance.tokens_per_second).toBeCloseTo(measured.tokensPerSecond ?? 0, 0);
    expect(fast?.performance.tokens_per_second).toBeGreaterThan(slow?.performance.tokens_per_second ?? 0);
    expect(slow?.uptime_last_30m).toBeGreaterThan(0);
    const feed = (await (await fetch(`${gateway.baseUrl}/v1/marketplace/models`)).json()) as {
      models: Array<{
        model_id: string;
        centralized_providers: Array<{ provider: string; performance: unknown }>;
      }>;
    };
    const row = feed.models.find((model) => model.model_id === "gpt-4o-mini");
    expect(
      row?.centralized_providers.find((entry) => entry.provider === "openai")?.performance,
    ).toMatchObject({
      measured: true,
      tokens_per_second: slow?.performance.tokens_per_second,
    });
    const unknown = await fetch(`${gateway.baseUrl}/v1/models/gpt-4o-mnii/endpoints`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("model not found: gpt-4o-mnii");
  });
});
