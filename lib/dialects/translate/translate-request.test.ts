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

describe("translateRequest anthropic → openai", () => {
  const cases: Array<{ name: string; body: Record<string, unknown>; expected: Record<string, unknown> }> = [
    {
      name: "string system, string content, sampling and stop sequences, streaming asks for usage",
      body: {
        model: "claude-sonnet-4-5",
        system: "You are terse.",
        max_tokens: 512,
        temperature: 0.2,
        top_p: 0.8,
        stop_sequences: ["END"],
        metadata: { user_id: "u-1" },
        stream: true,
        messages: [{ role: "user", content: "Hi" }],
      },
      expected: {
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "Hi" },
        ],
        max_completion_tokens: 512,
        temperature: 0.2,
        top_p: 0.8,
        stop: ["END"],
        user: "u-1",
        stream: true,
        stream_options: { include_usage: true },
      },
    },
    {
      name: "system blocks, images, tool_use with thinking dropped, tool_results split into tool messages",
      body: {
        max_tokens: 1024,
        system: [
          { type: "text", text: "Be helpful.", cache_control: { type: "ephemeral" } },
          { type: "text", text: "Use tools." },
        ],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is in these?" },
              { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
              { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
            ],
          },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hmm", signature: "sig" },
              { type: "text", text: "Checking." },
              { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "cat" } },
              { type: "tool_use", id: "toolu_2", name: "lookup", input: { q: "dog" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "a cat" },
              {
                type: "tool_result",
                tool_use_id: "toolu_2",
                is_error: true,
                content: [{ type: "text", text: "not found" }],
              },
              { type: "text", text: "And?" },
            ],
          },
        ],
        tools: [{ name: "lookup", description: "Look up", input_schema: weatherParameters }],
        tool_choice: { type: "any", disable_parallel_tool_use: true },
      },
      expected: {
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: "Be helpful.\n\nUse tools." },
          {
            role: "user",
            content: [
              { type: "text", text: "What is in these?" },
              { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
              { type: "image_url", image_url: { url: "https://example.com/a.png" } },
            ],
          },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [
              { id: "toolu_1", type: "function", function: { name: "lookup", arguments: '{"q":"cat"}' } },
              { id: "toolu_2", type: "function", function: { name: "lookup", arguments: '{"q":"dog"}' } },
            ],
          },
          { role: "tool", tool_call_id: "toolu_1", content: "a cat" },
          { role: "tool", tool_call_id: "toolu_2", content: "Error: not found" },
          { role: "user", content: "And?" },
        ],
        tools: [
          {
            type: "function",
            function: { name: "lookup", description: "Look up", parameters: weatherParameters },
          },
        ],
        tool_choice: "required",
        parallel_tool_calls: false,
        max_completion_tokens: 1024,
      },
    },
    {
      name: "assistant with only tool_use has null content; named tool choice; image in a tool result",
      body: {
        max_tokens: 10,
        messages: [
          { role: "user", content: "Screenshot please" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "shot", input: {} }] },
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "toolu_9",
                content: [
                  { type: "text", text: "captured" },
                  { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
                ],
              },
            ],
          },
        ],
        tools: [{ name: "shot", input_schema: { type: "object" } }],
        tool_choice: { type: "tool", name: "shot" },
      },
      expected: {
        model: "gpt-4o-mini",
        messages: [
          { role: "user", content: "Screenshot please" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "toolu_9", type: "function", function: { name: "shot", arguments: "{}" } }],
          },
          { role: "tool", tool_call_id: "toolu_9", content: "captured" },
          {
            role: "user",
            content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }],
          },
        ],
        tools: [{ type: "function", function: { name: "shot", parameters: { type: "object" } } }],
        tool_choice: { type: "function", function: { name: "shot" } },
        max_completion_tokens: 10,
      },
    },
  ];

  it.each(cases)("$name", ({ body, expected }) => {
    expect(translateRequest("anthropic", "openai", body, "gpt-4o-mini")).toEqual(expected);
  });

  it.each([
    { choice: { type: "auto" }, expected: "auto" },
    { choice: { type: "none" }, expected: "none" },
  ])("tool_choice $choice.type", ({ choice, expected }) => {
    const body = {
      max_tokens: 5,
      messages: [{ role: "user", content: "x" }],
      tools: [{ name: "f", input_schema: { type: "object" } }],
      tool_choice: choice,
    };
    expect(translateRequest("anthropic", "openai", body, "m").tool_choice).toBe(expected);
  });

  it("omits tool_choice and parallel_tool_calls when there are no tools (OpenAI rejects them)", () => {
    const body = { max_tokens: 5, messages: [{ role: "user", content: "x" }], tool_choice: { type: "auto" } };
    const result = translateRequest("anthropic", "openai", body, "m");
    expect(result).not.toHaveProperty("tool_choice");
    expect(result).not.toHaveProperty("parallel_tool_calls");
  });

  it.each([
    {
      name: "server tools",
      body: {
        max_tokens: 5,
        messages: [{ role: "user", content: "x" }],
        tools: [{ type: "web_search_20250305", name: "web_search" }],
      },
    },
    {
      name: "document blocks",
      body: {
        max_tokens: 5,
        messages: [
          {
            role: "user",
            content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }],
          },
        ],
      },
    },
    {
      name: "tool_use in a user message",
      body: {
        max_tokens: 5,
        messages: [{ role: "user", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }],
      },
    },
  ])("rejects $name with a 400", ({ body }) => {
    expect(() => translateRequest("anthropic", "openai", body, "m")).toThrow(GatewayError);
  });
});

describe("translateRequest same dialect", () => {
  it("openai → openai replaces the model, forces usage on streams and keeps unknown fields", () => {
    const body = { model: "a", stream: true, seed: 7, messages: [{ role: "user", content: "x" }] };
    expect(translateRequest("openai", "openai", body, "gpt-4o")).toEqual({
      model: "gpt-4o",
      stream: true,
      seed: 7,
      messages: body.messages,
      stream_options: { include_usage: true },
    });
    expect(translateRequest("openai", "openai", { ...body, stream: false }, "gpt-4o")).not.toHaveProperty(
      "stream_options",
    );
  });

  it("anthropic → anthropic replaces the model and defaults max_tokens", () => {
    const body = { model: "a", messages: [{ role: "user", content: "x" }], thinking: { type: "enabled" } };
    expect(translateRequest("anthropic", "anthropic", body, "claude-x")).toEqual({
      ...body,
      model: "claude-x",
      max_tokens: 4096,
    });
  });
});
