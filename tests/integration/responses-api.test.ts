import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as responsesRoute from "../../app/proxy/[token]/v1/responses/route";
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

const weatherTool: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};

/** What a prepaid token has spent so far. */
async function spent(token: string, funded: bigint): Promise<bigint> {
  const balance = await gateway.balanceOf(token);
  expect(balance.held).toBe(0n);
  return funded - balance.balance;
}

describe("the Responses API through the official openai SDK", () => {
  it("answers a plain request, billed exactly as the same chat completion", async () => {
    const funded = 1_000_000n;
    const token = await gateway.createFundedToken(funded);
    const { data, response } = await client(token)
      .responses.create({ model: "gpt-4o-mini", input: "hi [fake:tokens=4]" })
      .withResponse();
    expect(data.output_text).toBe("Hello w1 w2 w3");
    expect(data.status).toBe("completed");
    expect(data.object).toBe("response");
    expect(data.id).toMatch(/^resp_/);
    expect(data.model).toBe("gpt-4o-mini");
    expect(data.usage).toMatchObject({ output_tokens: 4 });
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    expect(response.headers.get("x-pod-route")).toBe("centralized");
    expect(response.headers.get("x-pod-provider-id")).toBe("openai");
    expect(response.headers.get("x-should-retry")).toBe("false");

    const usage = data.usage;
    if (!usage) throw new Error("usage missing");
    // gpt-4o-mini on openai: 150000 in / 600000 out per 1M, rounded up.
    const expected = BigInt(
      Math.ceil((usage.input_tokens * 150_000 + usage.output_tokens * 600_000) / 1_000_000),
    );
    expect(await spent(token, funded)).toBe(expected);
    expect(response.headers.get("x-balance-remaining")).toBe(String(funded - expected));

    // The same conversation over Chat Completions costs the same.
    const chatToken = await gateway.createFundedToken(funded);
    await client(chatToken).chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hi [fake:tokens=4]" }],
    });
    expect(await spent(chatToken, funded)).toBe(expected);
    expect(gateway.openai.requests.at(-1)?.body.messages).toEqual([
      { role: "user", content: "hi [fake:tokens=4]" },
    ]);
  });

  it("streams to finalResponse() with the same text and usage, and bills", async () => {
    const funded = 1_000_000n;
    const token = await gateway.createFundedToken(funded);
    const stream = client(token).responses.stream({ model: "gpt-4o-mini", input: "hi [fake:tokens=4]" });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("Hello w1 w2 w3");
    expect(deltas.join("")).toBe("Hello w1 w2 w3");
    expect(final.status).toBe("completed");
    expect(final.usage?.output_tokens).toBe(4);
    expect(gateway.openai.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true });
    const usage = final.usage;
    if (!usage) throw new Error("usage missing");
    const expected = BigInt(
      Math.ceil((usage.input_tokens * 150_000 + usage.output_tokens * 600_000) / 1_000_000),
    );
    await expect.poll(() => gateway.balanceOf(token).then((balance) => balance.held)).toBe(0n);
    expect(await spent(token, funded)).toBe(expected);
  });

  it("runs a tool loop: a function_call, then its output, then text", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const first = await client(token).responses.create({
      model: "gpt-4o-mini",
      input: "What is the weather in Paris? [fake:tool]",
      tools: [weatherTool],
    });
    const call = first.output.find((item) => item.type === "function_call");
    if (call?.type !== "function_call") throw new Error("no function_call item");
    expect(call.name).toBe("get_weather");
    expect(JSON.parse(call.arguments)).toEqual({ city: "Paris" });
    expect(call.id).toMatch(/^fc_/);

    // The fake answers every prompt containing its tool directive with a tool call, so the
    // replayed history carries the question without it; the call item goes back as returned.
    const second = await client(token).responses.create({
      model: "gpt-4o-mini",
      input: [
        { role: "user", content: "What is the weather in Paris? [fake:tokens=3]" },
        call,
        { type: "function_call_output", call_id: call.call_id, output: '{"temp_c":21}' },
      ],
      tools: [weatherTool],
    });
    expect(second.output_text).toBe("Hello w1 w2");
    expect(gateway.openai.requests.at(-1)?.body.messages).toEqual([
      { role: "user", content: "What is the weather in Paris? [fake:tokens=3]" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: call.call_id,
            type: "function",
            function: { name: "get_weather", arguments: call.arguments },
          },
        ],
      },
      { role: "tool", tool_call_id: call.call_id, content: '{"temp_c":21}' },
    ]);
  });

  it("streams a tool call as a function_call item", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const final = await client(token)
      .responses.stream({ model: "gpt-4o-mini", input: "weather? [fake:tool]", tools: [weatherTool] })
      .finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({ type: "function_call", name: "get_weather", arguments: '{"city":"Paris"}' }),
    ]);
  });

  it("serves a Codex-shaped request: instructions, developer items, hosted tools, store:false, stream", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const stream = await client(token).responses.create({
      model: "gpt-4o-mini",
      instructions: "You are a coding agent.",
      input: [
        {
          type: "message",
          role: "developer",
          content: [{ type: "input_text", text: "<permissions>workspace-write</permissions>" }],
        },
        { type: "message", role: "user", content: [{ type: "input_text", text: "hello [fake:tokens=3]" }] },
      ],
      tools: [
        {
          type: "function",
          name: "shell",
          description: "Runs a shell command",
          strict: false,
          parameters: {
            type: "object",
            properties: { command: { type: "array", items: { type: "string" } } },
          },
        },
        { type: "web_search" },
      ],
      tool_choice: "auto",
      parallel_tool_calls: false,
      reasoning: { effort: "medium", summary: "auto" },
      store: false,
      stream: true,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "session-1",
    });
    const seen: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === "response.completed") completed = event.response;
    }
    expect(seen[0]).toBe("response.created");
    expect(seen.at(-1)).toBe("response.completed");
    expect(completed?.status).toBe("completed");
    // Not in the SDK's type, but the gateway says so: nothing was stored.
    expect(completed && "store" in completed ? completed.store : undefined).toBe(false);
    expect(completed?.tools.map((tool) => tool.type)).toEqual(["function"]);
    const upstream = gateway.openai.requests.at(-1)?.body;
    // Instructions and developer items are the IR's system prompt, sent as one system message.
    expect(upstream?.messages).toEqual([
      { role: "system", content: "You are a coding agent.\n\n<permissions>workspace-write</permissions>" },
      { role: "user", content: "hello [fake:tokens=3]" },
    ]);
    const upstreamTools = (upstream?.tools ?? []) as Array<{ function: { name: string } }>;
    expect(upstreamTools.map((tool) => tool.function.name)).toEqual(["shell"]);
    expect(upstream?.parallel_tool_calls).toBe(false);
  });

  it("reports an upstream cut mid-stream as error + response.failed, and settles the hold", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        input: "cut [fake:tokens=10] [fake:cut=2]",
        stream: true,
      }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events.slice(-2)).toEqual(["error", "response.failed"]);
    expect(events).not.toContain("response.completed");
    await expect.poll(() => gateway.balanceOf(token).then((balance) => balance.held)).toBe(0n);
  });

  it("aborting mid-stream aborts the upstream and releases the hold", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const aborted = gateway.openai.abortedRequests;
    const controller = new AbortController();
    const stream = await client(token).responses.create(
      { model: "gpt-4o-mini", input: "long [fake:tokens=200] [fake:slow=10]", stream: true },
      { signal: controller.signal },
    );
    let deltas = 0;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") deltas += 1;
      if (deltas === 3) controller.abort();
    }
    expect(deltas).toBe(3);
    await expect.poll(() => gateway.openai.abortedRequests, { timeout: 5000 }).toBeGreaterThan(aborted);
    await expect.poll(async () => (await gateway.balanceOf(token)).held, { timeout: 5000 }).toBe(0n);
    const fullCost = BigInt(Math.ceil((200 * 600_000) / 1_000_000));
    expect(await spent(token, 1_000_000n)).toBeLessThan(fullCost);
  });

  it("an unknown previous_response_id is a 404, before any upstream call", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const calls = gateway.openai.requests.length;
    const error = await client(token)
      .responses.create({ model: "gpt-4o-mini", input: "again", previous_response_id: "resp_123" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain(
      "previous response not found",
    );
    expect(gateway.openai.requests.length).toBe(calls);
    expect(await spent(token, 1_000_000n)).toBe(0n);
  });

  it("raises AuthenticationError for an unknown token and keeps the chat path's errors", async () => {
    await expect(
      client("00000000-0000-4000-8000-000000000000").responses.create({ model: "gpt-4o-mini", input: "x" }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const token = await gateway.createFundedToken(1_000_000n);
    await expect(
      client(token).responses.create({ model: "no-such-model", input: "x" }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("serves an Anthropic model, streamed and not", async () => {
    const token = await gateway.createFundedToken(5_000_000n);
    const plain = await client(token).responses.create({
      model: "claude-haiku-4-5",
      instructions: "Be brief.",
      input: "hi [fake:tokens=4]",
      max_output_tokens: 100,
    });
    expect(plain.output_text).toBe("Hello w1 w2 w3");
    expect(plain.status).toBe("completed");
    expect(gateway.anthropic.requests.at(-1)?.body.system).toBeDefined();
    const streamed = await client(token)
      .responses.stream({ model: "claude-haiku-4-5", input: "hi [fake:tokens=3]" })
      .finalResponse();
    expect(streamed.output_text).toBe("Hello w1 w2");
    expect(streamed.usage?.output_tokens).toBe(3);
    const tool = await client(token).responses.create({
      model: "claude-haiku-4-5",
      input: "weather? [fake:tool]",
      tools: [weatherTool],
    });
    expect(tool.output).toEqual([
      expect.objectContaining({ type: "function_call", name: "get_weather", arguments: '{"city":"Paris"}' }),
    ]);
  });

  it("answers the same through the app/ route file as through server.ts", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", input: "parity [fake:tokens=3]" }),
    };
    const path = `/proxy/${token}/v1/responses`;
    const fromServer = await fetch(`${gateway.baseUrl}${path}`, init);
    const fromRoute = await responsesRoute.POST(new Request(`${gateway.baseUrl}${path}`, init), {
      params: Promise.resolve({ token }),
    });
    expect(fromRoute.status).toBe(200);
    const [server, route] = (await Promise.all([fromServer.json(), fromRoute.json()])) as Array<{
      output: Array<{ content?: unknown }>;
      usage: unknown;
    }>;
    expect(route?.output[0]?.content).toEqual(server?.output[0]?.content);
    expect(route?.usage).toEqual(server?.usage);
    expect(fromRoute.headers.get("x-pod-route")).toBe(fromServer.headers.get("x-pod-route"));
  });
});
