import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors/gateway-error";
import { translateResponse } from "../translate-response";
import { requestFor as contextFor } from "./testing";
import type { ResponseObject } from "./wire-types";

/** An OpenAI-format upstream's chat.completion, answered to a Responses caller through the IR. */
function translateChatCompletion(body: unknown, request: Record<string, unknown>): ResponseObject {
  const upstream = body as Record<string, unknown>;
  return translateResponse(
    "openai",
    "responses",
    upstream,
    String(request.model),
    request,
  ) as unknown as ResponseObject;
}

function completion(
  message: Record<string, unknown>,
  finishReason = "stop",
  usage?: Record<string, unknown>,
) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finishReason }],
    usage: usage ?? {
      prompt_tokens: 12,
      completion_tokens: 4,
      total_tokens: 16,
      prompt_tokens_details: { cached_tokens: 2 },
    },
  };
}

const weatherTool = { type: "function", name: "get_weather", parameters: { type: "object" } };

describe("a non-streamed answer to a Responses caller, from an OpenAI-format upstream", () => {
  it("answers text as one completed message with usage and the request's echo", () => {
    const context = contextFor({ instructions: "Be brief.", temperature: 0.5, metadata: { run: "1" } });
    const response = translateChatCompletion(completion({ content: "Hello" }), context);
    expect(response).toEqual({
      id: expect.stringMatching(/^resp_[0-9a-f]{48}$/),
      object: "response",
      created_at: expect.any(Number),
      status: "completed",
      error: null,
      incomplete_details: null,
      model: "gpt-4o-mini",
      instructions: "Be brief.",
      tools: [],
      tool_choice: "auto",
      parallel_tool_calls: true,
      temperature: 0.5,
      top_p: null,
      max_output_tokens: null,
      text: { format: { type: "text" } },
      reasoning: { effort: null, summary: null },
      metadata: { run: "1" },
      user: null,
      output: [
        {
          type: "message",
          id: expect.stringMatching(/^msg_/),
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Hello", annotations: [] }],
        },
      ],
      previous_response_id: null,
      store: true,
      background: false,
      truncation: "disabled",
      usage: {
        input_tokens: 12,
        input_tokens_details: { cached_tokens: 2 },
        output_tokens: 4,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 16,
      },
    });
  });

  it("puts reasoning first, then the message, then the calls", () => {
    const response = translateChatCompletion(
      completion(
        {
          content: "Let me check.",
          reasoning_content: "The user wants weather.",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
          ],
        },
        "tool_calls",
        { prompt_tokens: 5, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 6 } },
      ),
      contextFor({ tools: [weatherTool] }),
    );
    expect(response.status).toBe("completed");
    expect(response.output).toEqual([
      {
        type: "reasoning",
        id: expect.stringMatching(/^rs_/),
        summary: [],
        content: [{ type: "reasoning_text", text: "The user wants weather." }],
        status: "completed",
      },
      expect.objectContaining({
        type: "message",
        content: [expect.objectContaining({ text: "Let me check." })],
      }),
      {
        type: "function_call",
        id: expect.stringMatching(/^fc_/),
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        status: "completed",
      },
    ]);
    expect(response.usage).toEqual({
      input_tokens: 5,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 6 },
      total_tokens: 14,
    });
  });

  it("has no message item in a turn that is only tool calls", () => {
    const response = translateChatCompletion(
      completion(
        { content: null, tool_calls: [{ id: "c", function: { name: "get_weather", arguments: "{}" } }] },
        "tool_calls",
      ),
      contextFor({ tools: [weatherTool] }),
    );
    expect(response.output.map((item) => item.type)).toEqual(["function_call"]);
  });

  it("turns calls of a custom tool back into custom_tool_call items", () => {
    const response = translateChatCompletion(
      completion(
        {
          content: null,
          tool_calls: [
            {
              id: "call_p",
              function: { name: "apply_patch", arguments: JSON.stringify({ input: "*** Begin Patch\n" }) },
            },
          ],
        },
        "tool_calls",
      ),
      contextFor({ tools: [{ type: "custom", name: "apply_patch" }] }),
    );
    expect(response.output).toEqual([
      {
        type: "custom_tool_call",
        id: expect.stringMatching(/^ctc_/),
        call_id: "call_p",
        name: "apply_patch",
        input: "*** Begin Patch\n",
      },
    ]);
  });

  it("marks an answer cut by the output limit incomplete", () => {
    const response = translateChatCompletion(
      completion({ content: "Hello w1" }, "length"),
      contextFor({ max_output_tokens: 2 }),
    );
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.output[0]).toMatchObject({ type: "message", status: "incomplete" });
  });

  it("answers an empty completion with an empty message", () => {
    const response = translateChatCompletion(completion({ content: "" }), contextFor({}));
    expect(response.output).toEqual([
      expect.objectContaining({ type: "message", content: [expect.objectContaining({ text: "" })] }),
    ]);
  });

  it("blames the upstream (502) for a body that is not a chat completion", () => {
    expect(() => translateChatCompletion({ choices: [] }, contextFor({}))).toThrow(GatewayError);
    try {
      translateChatCompletion({ nope: true }, contextFor({}));
    } catch (error) {
      expect((error as GatewayError).status).toBe(502);
    }
  });
});
