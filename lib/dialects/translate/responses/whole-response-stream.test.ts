import { describe, expect, it } from "vitest";
import { translateResponseToResponsesStream } from "../translate-response";
import { parseEvents, requestFor } from "./testing";

describe("a whole upstream answer to a Responses caller that asked to stream", () => {
  it("streams a one-piece completion as the same Response the stream would give", () => {
    const completion = {
      object: "chat.completion",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Checking.",
            reasoning_content: "Weather needed.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
    const request = requestFor({ tools: [{ type: "function", name: "get_weather", parameters: {} }] });
    const text = translateResponseToResponsesStream("openai", completion, request);
    const last = parseEvents(text).at(-1);
    expect(last?.event).toBe("response.completed");
    expect(last?.data.response).toMatchObject({
      status: "completed",
      output: [
        { type: "reasoning", content: [{ text: "Weather needed." }] },
        { type: "message", content: [{ text: "Checking." }] },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{}" },
      ],
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    });
  });
});
