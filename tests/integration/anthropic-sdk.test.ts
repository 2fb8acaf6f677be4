import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const client = (token: string) =>
  new Anthropic({ baseURL: `${gateway.baseUrl}/proxy/${token}`, apiKey: "pod", maxRetries: 0 });

describe("official Anthropic SDK against the gateway", () => {
  it("gets a message billed exactly, with cache tokens at their own rates", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const { data, response } = await client(token)
      .messages.create({
        model: "claude-haiku-4-5",
        max_tokens: 64,
        system: "be brief",
        messages: [{ role: "user", content: "hello there, cache me [fake:cache] [fake:tokens=7]" }],
      })
      .withResponse();
    expect(data.content[0]).toMatchObject({ type: "text", text: "Hello w1 w2 w3 w4 w5 w6" });
    expect(response.headers.get("request-id")).toMatch(/^req_/);
    expect(response.headers.get("x-pod-provider-id")).toBe("anthropic");
    const usage = data.usage;
    // claude-haiku-4-5: 1,000,000 in / 5,000,000 out / 100,000 cache read / 1,250,000 cache write per 1M.
    const scaled =
      usage.input_tokens * 1_000_000 +
      usage.output_tokens * 5_000_000 +
      (usage.cache_read_input_tokens ?? 0) * 100_000 +
      (usage.cache_creation_input_tokens ?? 0) * 1_250_000;
    const expected = BigInt(Math.ceil(scaled / 1_000_000));
    expect((usage.cache_read_input_tokens ?? 0) > 0).toBe(true);
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n - expected);
  });

  it("streams to finalMessage() and bills from message_start/message_delta usage", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const stream = client(token).messages.stream({
      model: "claude-haiku-4-5",
      max_tokens: 100,
      messages: [{ role: "user", content: "stream [fake:tokens=9]" }],
    });
    const texts: string[] = [];
    stream.on("text", (text) => texts.push(text));
    const final = await stream.finalMessage();
    expect(texts.join("")).toBe("Hello w1 w2 w3 w4 w5 w6 w7 w8");
    expect(final.usage.output_tokens).toBe(9);
    expect(final.stop_reason).toBe("end_turn");
    const balance = await gateway.balanceOf(token);
    const expected = BigInt(Math.ceil((final.usage.input_tokens * 1_000_000 + 9 * 5_000_000) / 1_000_000));
    expect(balance.balance).toBe(1_000_000n - expected);
    expect(balance.held).toBe(0n);
  });

  it("passes streamed tool use through to the SDK's accumulated message", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const final = await client(token)
      .messages.stream({
        model: "claude-haiku-4-5",
        max_tokens: 100,
        tools: [
          { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } },
        ],
        messages: [{ role: "user", content: "weather? [fake:tool]" }],
      })
      .finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content[0]).toMatchObject({
      type: "tool_use",
      name: "get_weather",
      input: { city: "Paris" },
    });
  });

  it("raises AuthenticationError for a bad token and a 402 APIError for an unfunded one", async () => {
    const request = {
      model: "claude-haiku-4-5",
      max_tokens: 10,
      messages: [{ role: "user" as const, content: "x" }],
    };
    await expect(client("nope").messages.create(request)).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    const { token } = await gateway.register();
    const error = await client(token)
      .messages.create(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(402);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: "error",
      error: { type: "billing_error", code: "insufficient_balance" },
    });
  });

  it("turns a stream cut mid-way into an SDK exception and bills what was streamed", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const stream = client(token).messages.stream({
      model: "claude-haiku-4-5",
      max_tokens: 100,
      messages: [{ role: "user", content: "cut [fake:tokens=20] [fake:cut=4]" }],
    });
    await expect(stream.finalMessage()).rejects.toThrow(/upstream/);
    await expect.poll(async () => (await gateway.balanceOf(token)).held, { timeout: 5000 }).toBe(0n);
    const balance = await gateway.balanceOf(token);
    expect(balance.balance).toBeLessThan(1_000_000n);
    expect(balance.balance).toBeGreaterThan(1_000_000n - 1_000n);
  });

  it("aborting a stream aborts the upstream request", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const before = gateway.anthropic.abortedRequests;
    const stream = client(token).messages.stream({
      model: "claude-haiku-4-5",
      max_tokens: 1000,
      messages: [{ role: "user", content: "long [fake:tokens=300] [fake:slow=10]" }],
    });
    let deltas = 0;
    stream.on("text", () => {
      deltas += 1;
      if (deltas === 2) stream.abort();
    });
    await expect(stream.finalMessage()).rejects.toThrow();
    await expect.poll(() => gateway.anthropic.abortedRequests, { timeout: 5000 }).toBeGreaterThan(before);
    await expect.poll(async () => (await gateway.balanceOf(token)).held, { timeout: 5000 }).toBe(0n);
  });
});
