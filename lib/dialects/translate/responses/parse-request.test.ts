import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors/gateway-error";
import { translateRequest } from "../translate-request";
import { parseResponsesRequest } from "./parse-request";

/** A Responses request → IR → the Chat Completions body an OpenAI-format upstream receives. */
function translateResponsesRequest(body: unknown) {
  const { request, context } = parseResponsesRequest(body);
  const chatBody = translateRequest("responses", "openai", body as Record<string, unknown>, request.model);
  return { chatBody, context: { ...context, stream: request.stream } };
}

function badRequestOf(body: unknown): GatewayError {
  try {
    translateResponsesRequest(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a 400");
}

const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};

describe("a Responses request through the IR to an OpenAI-format upstream", () => {
  it("turns instructions and a string input into system and user messages", () => {
    const { chatBody, context } = translateResponsesRequest({
      model: "gpt-4o-mini",
      instructions: "Be brief.",
      input: "hi",
      max_output_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
    });
    expect(chatBody).toEqual({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
      max_completion_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
    });
    expect(context.stream).toBe(false);
    expect(context.echo).toMatchObject({
      model: "gpt-4o-mini",
      instructions: "Be brief.",
      max_output_tokens: 64,
      tool_choice: "auto",
      parallel_tool_calls: true,
      text: { format: { type: "text" } },
    });
  });

  it("maps message items: developer → system, images, assistant output_text, easy messages", () => {
    const { chatBody } = translateResponsesRequest({
      model: "m",
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "rules" }] },
        {
          role: "user",
          content: [
            { type: "input_text", text: "what is this?" },
            { type: "input_image", image_url: "https://example.com/cat.png", detail: "low" },
          ],
        },
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "A cat.", annotations: [] }],
        },
        { role: "user", content: "thanks" },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: "system", content: "rules" },
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
        ],
      },
      { role: "assistant", content: "A cat." },
      { role: "user", content: "thanks" },
    ]);
  });

  it("folds consecutive calls into the assistant turn and answers them with tool messages", () => {
    const { chatBody } = translateResponsesRequest({
      model: "m",
      tools: [weatherTool],
      input: [
        { role: "user", content: "Weather in Paris and Rome?" },
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "opaque" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
        { type: "function_call", call_id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", call_id: "call_b", name: "get_weather", arguments: '{"city":"Rome"}' },
        { type: "function_call_output", call_id: "call_a", output: '{"temp":21}' },
        {
          type: "function_call_output",
          call_id: "call_b",
          output: [{ type: "input_text", text: '{"temp":25}' }],
        },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
          { id: "call_b", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: '{"temp":21}' },
      { role: "tool", tool_call_id: "call_b", content: '{"temp":25}' },
    ]);
  });

  it("sends images a tool returned as a user turn after the tool messages", () => {
    const { chatBody } = translateResponsesRequest({
      model: "m",
      input: [
        { role: "user", content: "look" },
        { type: "function_call", call_id: "call_a", name: "view_image", arguments: "{}" },
        {
          type: "function_call_output",
          call_id: "call_a",
          output: [
            { type: "input_text", text: "attached" },
            { type: "input_image", image_url: "data:image/png;base64,AAAA" },
          ],
        },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: "user", content: "look" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_a", type: "function", function: { name: "view_image", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "call_a", content: "attached" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
    ]);
  });

  it("keeps function tools, drops hosted ones, and reports only the offered tools", () => {
    const { chatBody, context } = translateResponsesRequest({
      model: "m",
      input: "hi",
      tools: [weatherTool, { type: "web_search" }, { type: "local_shell" }, { type: "file_search" }],
      tool_choice: "auto",
      parallel_tool_calls: false,
    });
    expect(chatBody.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather for a city",
          parameters: weatherTool.parameters,
          strict: false,
        },
      },
    ]);
    expect(chatBody.tool_choice).toBe("auto");
    expect(chatBody.parallel_tool_calls).toBe(false);
    expect(context.echo.tools).toEqual([weatherTool]);
  });

  it("sends no tool fields when every tool was hosted", () => {
    const { chatBody, context } = translateResponsesRequest({
      model: "m",
      input: "hi",
      tools: [{ type: "web_search" }],
      tool_choice: { type: "web_search" },
      parallel_tool_calls: true,
    });
    expect(chatBody).not.toHaveProperty("tools");
    expect(chatBody).not.toHaveProperty("tool_choice");
    expect(chatBody).not.toHaveProperty("parallel_tool_calls");
    expect(context.echo.tools).toEqual([]);
  });

  it("maps a freeform custom tool to a one-argument function and replays its calls", () => {
    const { chatBody, context } = translateResponsesRequest({
      model: "m",
      tools: [
        {
          type: "custom",
          name: "apply_patch",
          description: "Edit files.",
          format: { type: "grammar", syntax: "lark", definition: "start: PATCH" },
        },
      ],
      tool_choice: { type: "custom", name: "apply_patch" },
      input: [
        { role: "user", content: "fix it" },
        { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: "*** Begin Patch" },
        { type: "custom_tool_call_output", call_id: "call_p", output: "Done" },
      ],
    });
    expect(chatBody.tools).toEqual([
      {
        type: "function",
        function: {
          name: "apply_patch",
          description: "Edit files.\n\nThe input must follow this lark grammar:\nstart: PATCH",
          parameters: {
            type: "object",
            properties: { input: { type: "string", description: "The raw input for this tool, verbatim." } },
            required: ["input"],
            additionalProperties: false,
          },
        },
      },
    ]);
    expect(chatBody.tool_choice).toEqual({ type: "function", function: { name: "apply_patch" } });
    expect(chatBody.messages).toEqual([
      { role: "user", content: "fix it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_p",
            type: "function",
            function: { name: "apply_patch", arguments: JSON.stringify({ input: "*** Begin Patch" }) },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_p", content: "Done" },
    ]);
    expect(context.targets.get("apply_patch")).toEqual({ kind: "custom", name: "apply_patch" });
  });

  it("flattens namespace tools into namespaced function names", () => {
    const { chatBody, context } = translateResponsesRequest({
      model: "m",
      input: [
        { role: "user", content: "list" },
        { type: "function_call", call_id: "c1", namespace: "files", name: "list", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "a.txt" },
      ],
      tools: [
        { type: "namespace", name: "files", description: "Files", tools: [{ ...weatherTool, name: "list" }] },
      ],
    });
    expect((chatBody.tools as Array<{ function: { name: string } }>)[0]?.function.name).toBe("files__list");
    expect(context.targets.get("files__list")).toEqual({
      kind: "function",
      name: "list",
      namespace: "files",
    });
    expect(JSON.stringify(chatBody.messages)).toContain('"name":"files__list"');
  });

  it("maps text.format to response_format and streams with the flag", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const { chatBody, context } = translateResponsesRequest({
      model: "m",
      input: "json please",
      stream: true,
      text: { format: { type: "json_schema", name: "thing", schema, strict: true } },
    });
    expect(chatBody.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "thing", schema, strict: true },
    });
    expect(chatBody.stream).toBe(true);
    expect(context.stream).toBe(true);
    expect(
      translateResponsesRequest({ model: "m", input: "x", text: { format: { type: "json_object" } } })
        .chatBody.response_format,
    ).toEqual({ type: "json_object" });
  });

  it("accepts and ignores Codex's extra fields; its reasoning effort is carried", () => {
    const { chatBody } = translateResponsesRequest({
      model: "gpt-5-codex",
      instructions: "You are Codex.",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
      store: false,
      reasoning: { effort: "medium", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "abc",
      text: { verbosity: "low" },
      stream: true,
    });
    // Billing needs the usage chunk, so a streamed request always asks for it.
    expect(Object.keys(chatBody).sort()).toEqual([
      "messages",
      "model",
      "reasoning_effort",
      "stream",
      "stream_options",
    ]);
    expect(chatBody.reasoning_effort).toBe("medium");
  });

  it("refuses what needs stored state it does not keep with a 400", () => {
    expect(badRequestOf({ model: "m", input: "hi", conversation: "conv_1" }).param).toBe("conversation");
    expect(badRequestOf({ model: "m", input: "hi", background: true }).param).toBe("background");
    expect(badRequestOf({ model: "m", input: [{ type: "item_reference", id: "msg_1" }] }).message).toContain(
      "item_reference is not supported",
    );
  });

  it("names the offending field of a malformed request", () => {
    expect(badRequestOf({ input: "hi" }).message).toContain("model");
    expect(badRequestOf({ model: "m", input: [{ type: "telepathy" }] }).message).toContain("input.0.type");
    expect(badRequestOf({ model: "m", input: "x", tools: [{ type: "function" }] }).message).toContain(
      "tools.0",
    );
    expect(
      badRequestOf({ model: "m", input: [{ role: "user", content: [{ type: "input_file", file_id: "f" }] }] })
        .message,
    ).toContain("input_file is not supported");
    expect(badRequestOf({ model: "m", input: [] }).message).toContain("at least one message");
  });
});
