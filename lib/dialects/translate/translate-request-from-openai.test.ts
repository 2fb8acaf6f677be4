import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors/gateway-error";
import { translateRequest } from "./translate-request";

const weatherParameters = {
  type: "object",
  properties: { location: { type: "string" } },
  required: ["location"],
};

describe("translateRequest openai → anthropic", () => {
  const cases: Array<{ name: string; body: Record<string, unknown>; expected: Record<string, unknown> }> = [
    {
      name: "system + developer messages are hoisted, max_tokens defaults to 4096",
      body: {
        model: "gateway/claude",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
          { role: "user", content: "Hi" },
        ],
      },
      expected: {
        model: "claude-sonnet-4-5",
        max_tokens: 4096,
        system: [
          { type: "text", text: "You are terse." },
          { type: "text", text: "Answer in French." },
        ],
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      },
    },
    {
      name: "sampling, stop and limits: max_completion_tokens wins, temperature clamped, top_p dropped beside it",
      body: {
        messages: [{ role: "user", content: "Hi" }],
        max_tokens: 100,
        max_completion_tokens: 200,
        temperature: 1.5,
        top_p: 0.9,
        stop: "END",
        user: "user-42",
        stream: true,
        stream_options: { include_usage: true },
      },
      expected: {
        model: "claude-sonnet-4-5",
        max_tokens: 200,
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
        temperature: 1,
        stop_sequences: ["END"],
        metadata: { user_id: "user-42" },
        stream: true,
      },
    },
    {
      name: "top_p alone passes; stop array becomes stop_sequences",
      body: { messages: [{ role: "user", content: "Hi" }], top_p: 0.5, stop: ["a", "b"] },
      expected: {
        model: "claude-sonnet-4-5",
        max_tokens: 4096,
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
        top_p: 0.5,
        stop_sequences: ["a", "b"],
      },
    },
    {
      name: "images: data URL becomes base64 source, http URL becomes url source",
      body: {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Compare" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } },
              { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
            ],
          },
        ],
      },
      expected: {
        model: "claude-sonnet-4-5",
        max_tokens: 4096,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Compare" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
            ],
          },
        ],
      },
    },
    {
      name: "tools, named tool_choice, parallel_tool_calls false, tool calls and merged tool results",
      body: {
        messages: [
          { role: "user", content: "Weather in Paris and Tokyo?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "get_weather", arguments: '{"location":"Paris"}' },
              },
              {
                id: "call_2",
                type: "function",
                function: { name: "get_weather", arguments: '{"location":"Tokyo"}' },
              },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "18C sunny" },
          { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "24C rain" }] },
          { role: "user", content: "Summarise." },
        ],
        tools: [
          {
            type: "function",
            function: { name: "get_weather", description: "Current weather", parameters: weatherParameters },
          },
          { type: "function", function: { name: "no_args" } },
        ],
        tool_choice: { type: "function", function: { name: "get_weather" } },
        parallel_tool_calls: false,
      },
      expected: {
        model: "claude-sonnet-4-5",
        max_tokens: 4096,
        messages: [
          { role: "user", content: [{ type: "text", text: "Weather in Paris and Tokyo?" }] },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "call_1", name: "get_weather", input: { location: "Paris" } },
              { type: "tool_use", id: "call_2", name: "get_weather", input: { location: "Tokyo" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "call_1", content: [{ type: "text", text: "18C sunny" }] },
              { type: "tool_result", tool_use_id: "call_2", content: [{ type: "text", text: "24C rain" }] },
              { type: "text", text: "Summarise." },
            ],
          },
        ],
        tools: [
          { name: "get_weather", description: "Current weather", input_schema: weatherParameters },
          { name: "no_args", input_schema: { type: "object", properties: {} } },
        ],
        tool_choice: { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
      },
    },
    {
      name: "assistant text + refusal; empty assistant text is dropped; invalid arguments become {}",
      body: {
        messages: [
          { role: "user", content: "a" },
          { role: "assistant", content: "", refusal: "I can't help with that." },
          { role: "user", content: "b" },
          {
            role: "assistant",
            content: [{ type: "text", text: "Calling" }],
            tool_calls: [{ id: "call_x", type: "function", function: { name: "f", arguments: "not json" } }],
          },
        ],
      },
      expected: {
        model: "claude-sonnet-4-5",
        max_tokens: 4096,
        messages: [
          { role: "user", content: [{ type: "text", text: "a" }] },
          { role: "assistant", content: [{ type: "text", text: "I can't help with that." }] },
          { role: "user", content: [{ type: "text", text: "b" }] },
          {
            role: "assistant",
            content: [
              { type: "text", text: "Calling" },
              { type: "tool_use", id: "call_x", name: "f", input: {} },
            ],
          },
        ],
      },
    },
  ];

  it.each(cases)("$name", ({ body, expected }) => {
    expect(translateRequest("openai", "anthropic", body, "claude-sonnet-4-5")).toEqual(expected);
  });

  const tools = [{ type: "function", function: { name: "f", parameters: weatherParameters } }];
  it.each([
    { choice: "auto", expected: { type: "auto" } },
    { choice: "required", expected: { type: "any" } },
    { choice: undefined, expected: undefined },
  ])("tool_choice $choice → $expected", ({ choice, expected }) => {
    const body = { messages: [{ role: "user", content: "x" }], tools, tool_choice: choice };
    const result = translateRequest("openai", "anthropic", body, "m");
    expect(result.tool_choice).toEqual(expected);
    expect(result.tools).toHaveLength(1);
  });

  it("tool_choice none omits the tools when the history has no tool blocks", () => {
    const body = { messages: [{ role: "user", content: "x" }], tools, tool_choice: "none" };
    const result = translateRequest("openai", "anthropic", body, "m");
    expect(result).not.toHaveProperty("tools");
    expect(result).not.toHaveProperty("tool_choice");
  });

  it("tool_choice none keeps tools with type none when the history has tool blocks (Anthropic requires them)", () => {
    const body = {
      messages: [
        { role: "user", content: "x" },
        {
          role: "assistant",
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c", content: "done" },
      ],
      tools,
      tool_choice: "none",
    };
    const result = translateRequest("openai", "anthropic", body, "m");
    expect(result.tool_choice).toEqual({ type: "none" });
    expect(result.tools).toHaveLength(1);
  });

  it.each([
    { name: "n > 1", body: { messages: [{ role: "user", content: "x" }], n: 2 }, message: /n/ },
    {
      name: "audio input",
      body: {
        messages: [
          { role: "user", content: [{ type: "input_audio", input_audio: { data: "", format: "wav" } }] },
        ],
      },
      message: /messages\.0\.content/,
    },
    {
      name: "non-base64 data URL",
      body: {
        messages: [
          { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png,abc" } }] },
        ],
      },
      message: /base64/,
    },
    { name: "no messages", body: { messages: [] }, message: /messages/ },
  ])("rejects $name with a 400 GatewayError", ({ body, message }) => {
    const attempt = () => translateRequest("openai", "anthropic", body, "m");
    expect(attempt).toThrow(GatewayError);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ status: 400, type: "bad_request" });
    }
  });
});
