import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors/gateway-error";
import { readJsonFixture } from "./testing";
import { translateResponse } from "./translate-response";

function openaiCompletion(
  message: Record<string, unknown>,
  finishReason: string,
  usage?: Record<string, unknown>,
) {
  return {
    id: "chatcmpl-upstream",
    object: "chat.completion",
    created: 1,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finishReason }],
    usage: usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function anthropicMessage(content: unknown[], stopReason: string, extra: Record<string, unknown> = {}) {
  return {
    id: "msg_upstream",
    type: "message",
    role: "assistant",
    model: "claude",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
    ...extra,
  };
}

describe("translateResponse openai → anthropic", () => {
  it("maps the recorded tool-call completion, including cached prompt tokens", () => {
    const result = translateResponse(
      "openai",
      "anthropic",
      readJsonFixture("openai-tool-calls.response.json"),
      "my-model",
    );
    expect(result).toEqual({
      id: expect.stringMatching(/^msg_[0-9A-Za-z]{24}$/),
      type: "message",
      role: "assistant",
      model: "my-model",
      content: [
        {
          type: "tool_use",
          id: "call_Q1w2E3r4T5y6U7i8O9p0AsDf",
          name: "get_weather",
          input: { location: "Paris", unit: "celsius" },
        },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      // prompt_tokens 2048 includes 1920 cached: Anthropic's input_tokens excludes them.
      usage: {
        input_tokens: 128,
        output_tokens: 18,
        cache_read_input_tokens: 1920,
        cache_creation_input_tokens: 0,
      },
    });
  });

  it.each([
    { finish: "stop", stopReason: "end_turn" },
    { finish: "length", stopReason: "max_tokens" },
    { finish: "tool_calls", stopReason: "tool_use" },
    { finish: "content_filter", stopReason: "refusal" },
    { finish: "function_call", stopReason: "tool_use" },
  ])("finish_reason $finish → $stopReason", ({ finish, stopReason }) => {
    const result = translateResponse("openai", "anthropic", openaiCompletion({ content: "Hi" }, finish), "m");
    expect(result.stop_reason).toBe(stopReason);
    expect(result.content).toEqual([{ type: "text", text: "Hi" }]);
  });

  it("a refusal becomes text with stop_reason refusal", () => {
    const result = translateResponse(
      "openai",
      "anthropic",
      openaiCompletion({ content: null, refusal: "I can't help with that." }, "stop"),
      "m",
    );
    expect(result).toMatchObject({
      content: [{ type: "text", text: "I can't help with that." }],
      stop_reason: "refusal",
    });
  });

  it("cache_write_tokens are split out of prompt_tokens too", () => {
    const usage = {
      prompt_tokens: 1000,
      completion_tokens: 7,
      total_tokens: 1007,
      prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 },
    };
    const result = translateResponse(
      "openai",
      "anthropic",
      openaiCompletion({ content: "x" }, "stop", usage),
      "m",
    );
    expect(result.usage).toEqual({
      input_tokens: 100,
      output_tokens: 7,
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 300,
    });
  });

  it("an unreadable upstream body is a 502 upstream_error, not the caller's fault", () => {
    const attempt = () => translateResponse("openai", "anthropic", { choices: [] }, "m");
    expect(attempt).toThrow(GatewayError);
    expect(attempt).toThrow(/unreadable/);
  });
});

describe("translateResponse anthropic → openai", () => {
  it("maps the recorded text message with cache reads and writes", () => {
    const result = translateResponse(
      "anthropic",
      "openai",
      readJsonFixture("anthropic-text.response.json"),
      "my-model",
    );
    expect(result).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9A-Za-z]{24}$/),
      object: "chat.completion",
      created: expect.any(Number),
      model: "my-model",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "Paris is 18°C and sunny right now.", refusal: null },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      // 35 uncached + 512 written + 4096 read: OpenAI's prompt_tokens counts all of them.
      usage: {
        prompt_tokens: 4643,
        completion_tokens: 11,
        total_tokens: 4654,
        prompt_tokens_details: { cached_tokens: 4096, cache_write_tokens: 512 },
      },
    });
  });

  it("text + tool_use blocks become content + tool_calls; thinking is dropped", () => {
    const body = anthropicMessage(
      [
        { type: "thinking", thinking: "...", signature: "s" },
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "toolu_01", name: "lookup", input: { q: "cats", limit: 3 } },
        { type: "tool_use", id: "toolu_02", name: "ping", input: {} },
      ],
      "tool_use",
    );
    const result = translateResponse("anthropic", "openai", body, "m");
    expect(result.choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Let me look.",
          refusal: null,
          tool_calls: [
            {
              id: "toolu_01",
              type: "function",
              function: { name: "lookup", arguments: '{"q":"cats","limit":3}' },
            },
            { id: "toolu_02", type: "function", function: { name: "ping", arguments: "{}" } },
          ],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ]);
  });

  it.each([
    { stopReason: "end_turn", finish: "stop" },
    { stopReason: "max_tokens", finish: "length" },
    { stopReason: "stop_sequence", finish: "stop" },
    { stopReason: "tool_use", finish: "tool_calls" },
    { stopReason: "refusal", finish: "content_filter" },
    { stopReason: "pause_turn", finish: "stop" },
    { stopReason: "model_context_window_exceeded", finish: "length" },
  ])("stop_reason $stopReason → $finish", ({ stopReason, finish }) => {
    const result = translateResponse(
      "anthropic",
      "openai",
      anthropicMessage([{ type: "text", text: "x" }], stopReason),
      "m",
    );
    expect(result.choices).toMatchObject([{ finish_reason: finish }]);
  });

  it("a tool_use-only answer has null content", () => {
    const body = anthropicMessage(
      [{ type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } }],
      "tool_use",
    );
    expect(translateResponse("anthropic", "openai", body, "m").choices).toMatchObject([
      { message: { content: null, tool_calls: [{ function: { arguments: '{"a":1}' } }] } },
    ]);
  });
});

describe("translateResponse same dialect", () => {
  it("keeps the body and replaces the model", () => {
    const body = anthropicMessage([{ type: "text", text: "x" }], "end_turn", { container: null });
    expect(translateResponse("anthropic", "anthropic", body, "mine")).toEqual({ ...body, model: "mine" });
  });
});

describe("images a chat model made (OpenRouter's message.images)", () => {
  const png =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
  const images = [{ type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }];
  const withImage = openaiCompletion({ content: "Here is your cat.", images }, "stop");

  it("reach an Anthropic caller as an image block beside the text", () => {
    const result = translateResponse("openai", "anthropic", withImage, "gemini-image");
    expect(result.content).toEqual([
      { type: "text", text: "Here is your cat." },
      { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
    ]);
  });

  it("reach a Responses caller as an image_generation_call item", () => {
    const result = translateResponse("openai", "responses", withImage, "gemini-image", {
      model: "gemini-image",
      input: "draw a cat",
    });
    expect(result.output).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "image_generation_call", status: "completed", result: png }),
      ]),
    );
  });

  it("pass to an OpenAI caller byte for byte (same dialect)", () => {
    expect(translateResponse("openai", "openai", withImage, "gemini-image")).toMatchObject({
      choices: [{ message: { images } }],
    });
  });
});
