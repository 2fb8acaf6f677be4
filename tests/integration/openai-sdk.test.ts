import OpenAI from "openai";
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
  new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });

describe("official openai SDK against the gateway", () => {
  it("gets a non-streamed completion billed exactly from usage", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const { data, response } = await client(token)
      .chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "hi [fake:tokens=4]" }],
        max_tokens: 50,
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe("Hello w1 w2 w3");
    expect(response.headers.get("x-pod-route")).toBe("centralized");
    expect(response.headers.get("x-pod-provider-id")).toBe("openai");
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    const usage = data.usage;
    if (!usage) throw new Error("usage missing");
    // gpt-4o-mini on openai: 150000 in / 600000 out per 1M, rounded up.
    const expected = BigInt(
      Math.ceil((usage.prompt_tokens * 150_000 + usage.completion_tokens * 600_000) / 1_000_000),
    );
    const balance = await gateway.balanceOf(token);
    expect(balance.balance).toBe(1_000_000n - expected);
    expect(balance.held).toBe(0n);
    expect(response.headers.get("x-balance-remaining")).toBe(String(1_000_000n - expected));
    expect(response.headers.get("x-pod-cost-microunits")).toBe(String(expected));
  });

  it("streams to the end without an unrequested usage chunk, and still bills", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const stream = await client(token).chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "stream please [fake:tokens=6]" }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("Hello w1 w2 w3 w4 w5");
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
    const upstreamBody = gateway.openai.requests.at(-1)?.body;
    expect(upstreamBody?.stream_options).toEqual({ include_usage: true });
    const balance = await gateway.balanceOf(token);
    expect(balance.balance).toBeLessThan(1_000_000n);
    expect(balance.held).toBe(0n);
  });

  it("passes the usage chunk through when the caller asked for it", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const stream = await client(token).chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "usage [fake:tokens=3]" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage?.completion_tokens).toBe(3);
  });

  it("passes tool calls through, streamed and not", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: "function",
        function: {
          name: "get_weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    ];
    const plain = await client(token).chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "weather? [fake:tool]" }],
      tools,
    });
    expect(plain.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    const runner = client(token).chat.completions.stream({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "weather? [fake:tool]" }],
      tools,
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" ? JSON.parse(call.function.arguments) : undefined).toEqual({
      city: "Paris",
    });
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("lists models in the OpenAI list shape, with the catalog's metadata beside it", async () => {
    const token = await gateway.createFundedToken(1n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/models`);
    const body = (await response.json()) as { object: string; data: Record<string, unknown>[] };
    expect(Object.keys(body).sort()).toEqual(["data", "object"]);
    expect(body.object).toBe("list");
    for (const model of body.data) {
      expect(model).toMatchObject({
        id: expect.any(String),
        object: "model",
        created: expect.any(Number),
        owned_by: expect.any(String),
        context_length: expect.any(Number),
        capabilities: expect.any(Object),
        pricing: expect.any(Object),
      });
    }
    const listed = [];
    for await (const model of client(token).models.list()) listed.push(model.id);
    expect(listed).toContain("gpt-4o-mini");
    expect(listed).toContain("claude-haiku-4-5");
  });

  it("health reports the database and the configured upstreams", async () => {
    const response = await fetch(`${gateway.baseUrl}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      status: string;
      components: { database: { status: string }; upstreams: Record<string, unknown> };
    };
    expect(body.status).toBe("ok");
    expect(body.components.database.status).toBe("ok");
    expect(Object.keys(body.components.upstreams).sort()).toEqual(["anthropic", "openai", "openrouter"]);
    expect(JSON.stringify(body)).not.toContain("sk-test");
  });

  it("raises typed errors: 401 for unknown and malformed tokens, 402 for an unfunded one", async () => {
    await expect(
      client("not-a-uuid").chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "x" }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(
      client("00000000-0000-4000-8000-000000000000").chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "x" }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const { token } = await gateway.register();
    const error = await client(token)
      .chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe("insufficient_balance");
  });

  it("aborting mid-stream aborts the upstream and bills only what was streamed", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const controller = new AbortController();
    const stream = await client(token).chat.completions.create(
      {
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "long [fake:tokens=200] [fake:slow=10]" }],
        stream: true,
      },
      { signal: controller.signal },
    );
    let seen = 0;
    // The SDK ends the iteration quietly when its own signal aborts.
    for await (const _chunk of stream) {
      seen += 1;
      if (seen === 3) controller.abort();
    }
    expect(seen).toBe(3);
    await expect.poll(() => gateway.openai.abortedRequests, { timeout: 5000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await gateway.balanceOf(token)).held, { timeout: 5000 }).toBe(0n);
    const balance = await gateway.balanceOf(token);
    const fullCost = BigInt(Math.ceil((200 * 600_000) / 1_000_000));
    expect(balance.balance).toBeGreaterThan(1_000_000n - fullCost - 100n);
  });
});
