import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { expectedCost } from "../../helpers/inference-client";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";

let gateway: TestGateway;
let market: MarketplaceFixture;

beforeAll(async () => {
  gateway = await startTestGateway({ extraUpstreams: ["together"] });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  await market.cleanup();
});
afterAll(async () => {
  await gateway.close();
});

const anthropic = (token: string) =>
  new Anthropic({ baseURL: `${gateway.baseUrl}/proxy/${token}`, apiKey: "pod", maxRetries: 0 });
const openai = (token: string) =>
  new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });

describe("an Anthropic-dialect caller served by an OpenAI-format source", () => {
  it("non-streamed: a Messages reply with the requested model, billed at the relay's price", async () => {
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 400_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const { data, response } = await anthropic(token)
      .messages.create({
        model: "openai/gpt-4o-mini",
        max_tokens: 50,
        system: "be brief",
        messages: [{ role: "user", content: "hi [fake:tokens=4]" }],
      })
      .withResponse();
    expect(response.headers.get("x-pod-route")).toBe("key-relay");
    expect(response.headers.get("x-pod-provider-id")).toBe(relay.providerId);
    expect(data).toMatchObject({
      type: "message",
      role: "assistant",
      model: "openai/gpt-4o-mini",
      stop_reason: "end_turn",
    });
    expect(data.content[0]).toMatchObject({ type: "text", text: "Hello w1 w2 w3" });
    const upstream = gateway.extraUpstreams.together?.requests.at(-1)?.body;
    expect(upstream?.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi [fake:tokens=4]" },
    ]);
    const cost = expectedCost(
      { input: data.usage.input_tokens, output: data.usage.output_tokens },
      { input: 100_000, output: 400_000 },
    );
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n - cost);
  });

  it("streamed, with a tool call, from a marketplace agent", async () => {
    await market.agent({ offers: [{ model: "gpt-4o-mini", input: 50_000, output: 200_000 }] });
    const token = await gateway.createFundedToken(1_000_000n);
    const stream = anthropic(token).messages.stream({
      model: "gpt-4o-mini",
      max_tokens: 50,
      tools: [
        { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } },
      ],
      messages: [{ role: "user", content: "weather? [fake:tool]" }],
    });
    const final = await stream.finalMessage();
    expect(final.model).toBe("gpt-4o-mini");
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content[0]).toMatchObject({
      type: "tool_use",
      name: "get_weather",
      input: { city: "Paris" },
    });
    await expect.poll(async () => (await gateway.balanceOf(token)).held).toBe(0n);
    expect((await gateway.balanceOf(token)).balance).toBeLessThan(1_000_000n);
  });

  it("streamed text is billed from the upstream's usage chunk", async () => {
    await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 400_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const stream = anthropic(token).messages.stream({
      model: "gpt-4o-mini",
      max_tokens: 50,
      messages: [{ role: "user", content: "stream [fake:tokens=6]" }],
    });
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
    });
    const final = await stream.finalMessage();
    expect(text).toBe("Hello w1 w2 w3 w4 w5");
    expect(final.usage.output_tokens).toBe(6);
    const upstream = gateway.extraUpstreams.together?.requests.at(-1)?.body;
    expect(upstream?.stream_options).toEqual({ include_usage: true });
    const cost = expectedCost(
      { input: final.usage.input_tokens, output: 6 },
      { input: 100_000, output: 400_000 },
    );
    await expect.poll(async () => (await gateway.balanceOf(token)).balance).toBe(1_000_000n - cost);
  });
});

describe("an OpenAI-dialect caller served by an Anthropic source", () => {
  it("non-streamed, from the Anthropic centralized provider", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const { data, response } = await openai(token)
      .chat.completions.create({
        model: "claude-haiku-4.5",
        max_tokens: 40,
        messages: [{ role: "user", content: "hi [fake:tokens=3]" }],
      })
      .withResponse();
    expect(response.headers.get("x-pod-provider-id")).toBe("anthropic");
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("claude-haiku-4.5");
    expect(data.choices[0]?.message.content).toBe("Hello w1 w2");
    expect(data.choices[0]?.finish_reason).toBe("stop");
    const upstream = gateway.anthropic.requests.at(-1)?.body;
    expect(upstream).toMatchObject({ model: "claude-haiku-4-5", max_tokens: 40 });
  });

  it("streamed from an Anthropic-format marketplace agent, without a usage chunk unless asked", async () => {
    const agent = await market.agent({
      dialect: "anthropic",
      offers: [{ model: "claude-haiku-4-5", input: 500_000, output: 2_000_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const { data: stream, response } = await openai(token)
      .chat.completions.create({
        model: "claude-haiku-4-5",
        stream: true,
        messages: [{ role: "user", content: "go [fake:tokens=5]" }],
      })
      .withResponse();
    expect(response.headers.get("x-pod-provider-id")).toBe(agent.host.providerId);
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Hello w1 w2 w3 w4");
    expect(chunks.every((chunk) => chunk.usage === undefined || chunk.usage === null)).toBe(true);
    expect(chunks.every((chunk) => chunk.model === "claude-haiku-4-5")).toBe(true);
    // An OpenAI caller sent no max_tokens; Anthropic needs one, bounded by what the hold covers.
    const sent = agent.backend.requests.at(-1)?.body.max_tokens;
    expect(typeof sent).toBe("number");
    expect(sent as number).toBeLessThanOrEqual(64_000);
    await expect.poll(async () => (await gateway.balanceOf(token)).held).toBe(0n);

    const withUsage = await openai(token).chat.completions.create({
      model: "claude-haiku-4-5",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "go [fake:tokens=2]" }],
    });
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of withUsage) if (chunk.usage) usage = chunk.usage;
    expect(usage?.completion_tokens).toBe(2);
  });

  it("an upstream that cannot express the request is skipped: only same-dialect sources remain", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "claude-haiku-4-5",
        n: 2,
        messages: [{ role: "user", content: "two please" }],
      }),
    });
    // claude-haiku-4-5's sources: anthropic (Anthropic format) and openrouter (OpenAI format).
    expect(response.status).toBe(200);
    expect(response.headers.get("x-pod-provider-id")).toBe("openrouter");
  });
});
