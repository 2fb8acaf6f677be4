import type { IncomingMessage, ServerResponse } from "node:http";
import OpenAI from "openai";
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
 * End to end: the official openai SDK talks to a tiny server that does what the gateway
 * does for an Anthropic-speaking upstream: translate the request, replay a recorded-format
 * Anthropic response (in small byte pieces), and translate it back.
 */

type CallerBody = Record<string, unknown> & { model?: string; stream_options?: { include_usage?: boolean } };
type Upstream = (callerBody: CallerBody, response: ServerResponse) => Promise<void> | void;

let server: TestServer;
let upstream: Upstream;
const upstreamRequests: Array<Record<string, unknown>> = [];

async function gateway(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body: CallerBody = await readJsonBody(request);
  upstreamRequests.push(translateRequest("openai", "anthropic", body, "claude-sonnet-4-5"));
  await upstream(body, response);
}

function replayAnthropicStream(fixture: string): Upstream {
  return (body, response) => {
    const translated = streamOf(splitBytes(readFixture(fixture), 19)).pipeThrough(
      createStreamTranslator("anthropic", "openai", {
        model: body.model ?? "",
        includeUsage: body.stream_options?.include_usage === true,
      }),
    );
    return sendStream(response, translated);
  };
}

const tools: OpenAI.ChatCompletionFunctionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: {
        type: "object",
        properties: { location: { type: "string" }, unit: { type: "string" } },
        required: ["location"],
      },
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

const client = () => new OpenAI({ apiKey: "test-key", baseURL: server.baseUrl, maxRetries: 0 });

describe("openai SDK caller, Anthropic upstream", () => {
  it("streams a tool call, accumulates its arguments, then gets the answer to the tool result", async () => {
    upstream = replayAnthropicStream("anthropic-tool-use.sse");
    const question: OpenAI.ChatCompletionMessageParam = { role: "user", content: "Weather in Paris?" };
    const stream = await client().chat.completions.create({
      model: "gpt-via-gateway",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "system", content: "Be brief." }, question],
      tools,
      tool_choice: "auto",
    });
    let text = "";
    let finishReason: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for await (const chunk of stream) {
      expect(chunk.model).toBe("gpt-via-gateway");
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      text += choice.delta.content ?? "";
      for (const delta of choice.delta.tool_calls ?? []) {
        const call = calls[delta.index] ?? { id: "", name: "", arguments: "" };
        calls[delta.index] = call;
        call.id ||= delta.id ?? "";
        call.name += delta.function?.name ?? "";
        call.arguments += delta.function?.arguments ?? "";
      }
      finishReason = choice.finish_reason ?? finishReason;
    }

    expect(upstreamRequests[0]).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      stream: true,
      system: [{ type: "text", text: "Be brief." }],
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }],
      tools: [{ name: "get_weather", input_schema: tools[0]?.function.parameters }],
      tool_choice: { type: "auto" },
    });
    expect(text).toBe("I'll check the current weather in Paris for you.");
    expect(finishReason).toBe("tool_calls");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather" });
    expect(JSON.parse(calls[0]?.arguments ?? "")).toEqual({ location: "Paris, France", unit: "celsius" });
    expect(usage).toEqual({
      prompt_tokens: 472,
      completion_tokens: 89,
      total_tokens: 561,
      prompt_tokens_details: { cached_tokens: 0 },
    });

    upstream = replayAnthropicStream("anthropic-text-ping-cache.sse");
    const call = calls[0] ?? { id: "", name: "", arguments: "" };
    // The SDK's own accumulator (ChatCompletionStream) checks chunk order strictly.
    const final = await client()
      .chat.completions.stream({
        model: "gpt-via-gateway",
        stream_options: { include_usage: true },
        tools,
        messages: [
          question,
          {
            role: "assistant",
            content: text,
            tool_calls: [
              { id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } },
            ],
          },
          { role: "tool", tool_call_id: call.id, content: "18°C and sunny" },
        ],
      })
      .finalChatCompletion();

    expect(upstreamRequests[1]?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "I'll check the current weather in Paris for you." },
          {
            type: "tool_use",
            id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            name: "get_weather",
            input: { location: "Paris, France", unit: "celsius" },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            content: [{ type: "text", text: "18°C and sunny" }],
          },
        ],
      },
    ]);
    expect(final.id).toMatch(/^chatcmpl-/);
    expect(final.choices[0]?.message.content).toBe("Bonjour! Paris is 18°C and sunny today. 🌤");
    expect(final.choices[0]?.finish_reason).toBe("stop");
    expect(final.usage).toMatchObject({
      prompt_tokens: 2165,
      completion_tokens: 14,
      total_tokens: 2179,
      prompt_tokens_details: { cached_tokens: 1888 },
    });
  });

  it("ChatCompletionStream accumulates streamed tool call arguments into a final message", async () => {
    upstream = replayAnthropicStream("anthropic-tool-use.sse");
    const final = await client()
      .chat.completions.stream({
        model: "m",
        tools,
        messages: [{ role: "user", content: "Weather in Paris?" }],
      })
      .finalChatCompletion();
    const toolCall = final.choices[0]?.message.tool_calls?.[0];
    expect(toolCall).toMatchObject({ id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function" });
    expect(toolCall?.type === "function" && JSON.parse(toolCall.function.arguments)).toEqual({
      location: "Paris, France",
      unit: "celsius",
    });
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("non-streaming: a translated Anthropic message is a valid chat.completion", async () => {
    upstream = (body, response) =>
      sendJson(
        response,
        200,
        translateResponse(
          "anthropic",
          "openai",
          readJsonFixture("anthropic-text.response.json"),
          body.model ?? "",
        ),
      );
    const completion = await client().chat.completions.create({
      model: "gpt-x",
      max_completion_tokens: 300,
      temperature: 0.3,
      stop: ["\n\n"],
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    expect(upstreamRequests[0]).toMatchObject({
      max_tokens: 300,
      temperature: 0.3,
      stop_sequences: ["\n\n"],
    });
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: "gpt-x",
      choices: [
        {
          message: { role: "assistant", content: "Paris is 18°C and sunny right now." },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 4643, completion_tokens: 11, prompt_tokens_details: { cached_tokens: 4096 } },
    });
  });

  it("an upstream error mid-stream makes the SDK throw after the text so far", async () => {
    upstream = replayAnthropicStream("anthropic-error-midstream.sse");
    const stream = await client().chat.completions.create({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    });
    let text = "";
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((error: unknown) => error);
    expect(text).toBe("Let me think");
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ type: "server_error", code: "overloaded_error", message: "Overloaded" });
  });

  it("a gateway error written with encodeStreamError makes the SDK throw", async () => {
    upstream = (_body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(encodeStreamError("openai", "upstream_error", "upstream connection reset"));
    };
    const stream = await client().chat.completions.create({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    });
    const failure = await (async () => {
      for await (const _chunk of stream) {
        // Nothing arrives before the error.
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ type: "upstream_error", message: "upstream connection reset" });
  });

  it("a non-streaming upstream error status arrives as the matching SDK error class", async () => {
    upstream = (_body, response) =>
      sendJson(
        response,
        401,
        translateErrorBody(
          "anthropic",
          "openai",
          { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
          401,
        ),
      );
    const failure = await client()
      .chat.completions.create({ model: "m", messages: [{ role: "user", content: "Hi" }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(failure).toMatchObject({
      status: 401,
      type: "authentication_error",
      code: "authentication_error",
    });
  });
});
