import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors/gateway-error";
import { translateRequest } from "./translate-request";

const weatherParameters = {
  type: "object",
  properties: { location: { type: "string" } },
  required: ["location"],
};

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

  it("drops an assistant turn that held only thinking", () => {
    const body = {
      max_tokens: 5,
      messages: [
        { role: "user", content: "a" },
        { role: "assistant", content: [{ type: "thinking", thinking: "…", signature: "s" }] },
        { role: "user", content: "b" },
      ],
    };
    expect(translateRequest("anthropic", "openai", body, "m").messages).toEqual([
      { role: "user", content: "a" },
      { role: "user", content: "b" },
    ]);
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
