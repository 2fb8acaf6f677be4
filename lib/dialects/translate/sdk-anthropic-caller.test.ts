import type { IncomingMessage, ServerResponse } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createStreamTranslator,
  encodeStreamError,
  translateErrorBody,
  translateRequest,
  translateResponse,
} from ".";
import {
  readFixture,
  readJsonBody,
  readJsonFixture,
  sendJson,
  sendStream,
  splitBytes,
  startTestServer,
  streamOf,
  type TestServer,
} from "./testing";

/**
 * End to end: the official Anthropic SDK talks to a tiny server that does what the gateway
 * does for an OpenAI-speaking upstream: translate the request, replay a recorded-format
 * OpenAI response (in small byte pieces), and translate it back.
 */

type Upstream = (upstreamBody: Record<string, unknown>, response: ServerResponse) => Promise<void> | void;

let server: TestServer;
let upstream: Upstream;
const upstreamRequests: Array<Record<string, unknown>> = [];

async function gateway(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJsonBody(request);
  const upstreamBody = translateRequest("anthropic", "openai", body, "gpt-4o-mini");
  upstreamRequests.push(upstreamBody);
  await upstream(upstreamBody, response);
}

function replayOpenaiStream(fixture: string, model = "claude-via-gateway"): Upstream {
  return (_body, response) => {
    const translated = streamOf(splitBytes(readFixture(fixture), 23)).pipeThrough(
      createStreamTranslator("openai", "anthropic", { model, includeUsage: false }),
    );
    return sendStream(response, translated);
  };
}

const tools: Anthropic.Tool[] = [
  {
    name: "get_weather",
    description: "Current weather for a city",
    input_schema: {
      type: "object",
      properties: { location: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
      required: ["location"],
    },
  },
];

beforeAll(async () => {
  server = await startTestServer(gateway);
});
afterAll(() => server.close());
beforeEach(() => {
  upstreamRequests.length = 0;
});

const client = () => new Anthropic({ apiKey: "test-key", baseURL: server.baseUrl, maxRetries: 0 });

describe("Anthropic SDK caller, OpenAI upstream", () => {
  it("runs a streamed tool-use loop: parallel tool_use blocks, then a text answer", async () => {
    const question: Anthropic.MessageParam = { role: "user", content: "Weather in Paris and Tokyo?" };
    upstream = replayOpenaiStream("openai-parallel-tool-calls.sse");
    const first = await client()
      .messages.stream({
        model: "claude-via-gateway",
        max_tokens: 1024,
        system: "Be brief.",
        tools,
        messages: [question],
      })
      .finalMessage();

    expect(upstreamRequests[0]).toMatchObject({
      model: "gpt-4o-mini",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 1024,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris and Tokyo?" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", parameters: tools[0]?.input_schema } }],
    });
    expect(first.id).toMatch(/^msg_/);
    expect(first.model).toBe("claude-via-gateway");
    expect(first.stop_reason).toBe("tool_use");
    const toolUses = first.content.filter((block) => block.type === "tool_use");
    expect(toolUses.map(({ id, name, input }) => ({ id, name, input }))).toEqual([
      {
        id: "call_8TqQmFzW1r0bH3xKp5Ny2LcV",
        name: "get_weather",
        input: { location: "Paris", unit: "celsius" },
      },
      {
        id: "call_Ha3vLwY9sE2nQ0tK7bXm4RjD",
        name: "get_weather",
        input: { location: "Tokyo", unit: "celsius" },
      },
    ]);
    expect(first.usage).toMatchObject({ input_tokens: 86, output_tokens: 52, cache_read_input_tokens: 0 });

    upstream = replayOpenaiStream("openai-text-usage.sse");
    const results: Anthropic.ToolResultBlockParam[] = toolUses.map((block, index) => ({
      type: "tool_result",
      tool_use_id: block.id,
      content: index === 0 ? "18°C, sunny" : "24°C, light rain",
    }));
    const second = await client()
      .messages.stream({
        model: "claude-via-gateway",
        max_tokens: 1024,
        tools,
        messages: [question, { role: "assistant", content: toolUses }, { role: "user", content: results }],
      })
      .finalMessage();

    // The upstream saw OpenAI-shaped history: tool_calls, then one `tool` message per result.
    expect(upstreamRequests[1]?.messages).toEqual([
      { role: "user", content: "Weather in Paris and Tokyo?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_8TqQmFzW1r0bH3xKp5Ny2LcV",
            type: "function",
            function: { name: "get_weather", arguments: '{"location":"Paris","unit":"celsius"}' },
          },
          {
            id: "call_Ha3vLwY9sE2nQ0tK7bXm4RjD",
            type: "function",
            function: { name: "get_weather", arguments: '{"location":"Tokyo","unit":"celsius"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_8TqQmFzW1r0bH3xKp5Ny2LcV", content: "18°C, sunny" },
      { role: "tool", tool_call_id: "call_Ha3vLwY9sE2nQ0tK7bXm4RjD", content: "24°C, light rain" },
    ]);
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content).toEqual([
      { type: "text", text: "The weather in Paris is 18°C and sunny, Tokyo 24°C with light rain." },
    ]);
    expect(second.usage).toMatchObject({
      input_tokens: 256,
      cache_read_input_tokens: 1280,
      cache_creation_input_tokens: 0,
      output_tokens: 19,
    });
  });

  it("non-streaming: a translated chat.completion is a valid Message", async () => {
    upstream = (_body, response) =>
      sendJson(
        response,
        200,
        translateResponse(
          "openai",
          "anthropic",
          readJsonFixture("openai-tool-calls.response.json"),
          "claude-x",
        ),
      );
    const message = await client().messages.create({
      model: "claude-x",
      max_tokens: 256,
      tools,
      tool_choice: { type: "any" },
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    expect(upstreamRequests[0]).toMatchObject({ tool_choice: "required", max_completion_tokens: 256 });
    expect(upstreamRequests[0]).not.toHaveProperty("stream");
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-x",
      stop_reason: "tool_use",
      content: [{ type: "tool_use", name: "get_weather", input: { location: "Paris", unit: "celsius" } }],
      usage: { input_tokens: 128, cache_read_input_tokens: 1920, output_tokens: 18 },
    });
  });

  it("an upstream error mid-stream makes the SDK throw", async () => {
    upstream = replayOpenaiStream("openai-error-midstream.sse");
    const stream = client().messages.stream({
      model: "claude-x",
      max_tokens: 64,
      messages: [{ role: "user", content: "Hi" }],
    });
    const failure = await stream.finalMessage().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(failure).toMatchObject({ type: "api_error", status: undefined });
    expect(String(failure)).toContain("The server had an error");
  });

  it("a gateway error written with encodeStreamError after the first bytes makes the SDK throw", async () => {
    upstream = async (_body, response) => {
      // An upstream that stalls after a few chunks: the gateway gives up after bytes went out.
      const head = readFixture("openai-text-usage.sse").subarray(0, 900);
      const stalled = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(head) });
      const reader = stalled
        .pipeThrough(createStreamTranslator("openai", "anthropic", { model: "m", includeUsage: false }))
        .getReader();
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (let sentText = false; !sentText; ) {
        const read = await reader.read();
        if (read.done) break;
        response.write(read.value);
        sentText = new TextDecoder().decode(read.value).includes("text_delta");
      }
      await reader.cancel();
      response.end(encodeStreamError("anthropic", "no_provider", "upstream budget exhausted"));
    };
    const events: string[] = [];
    const stream = client().messages.stream({
      model: "m",
      max_tokens: 64,
      messages: [{ role: "user", content: "Hi" }],
    });
    stream.on("streamEvent", (event) => events.push(event.type));
    const failure = await stream.finalMessage().catch((error: unknown) => error);
    expect(events).toContain("content_block_delta");
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(failure).toMatchObject({ type: "overloaded_error" });
    expect(String(failure)).toContain("upstream budget exhausted");
  });

  it("a non-streaming upstream error status arrives as the matching SDK error class", async () => {
    upstream = (_body, response) =>
      sendJson(
        response,
        429,
        translateErrorBody(
          "openai",
          "anthropic",
          {
            error: {
              message: "Rate limit reached for gpt-4o-mini",
              type: "tokens",
              code: "rate_limit_exceeded",
            },
          },
          429,
        ),
      );
    const failure = await client()
      .messages.create({ model: "m", max_tokens: 8, messages: [{ role: "user", content: "Hi" }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.RateLimitError);
    expect(failure).toMatchObject({ status: 429, type: "rate_limit_error" });
  });
});
