import type { ChatResponse, TextPart } from "../ir";
import { newVendorId } from "../new-id";
import { renderOpenaiFinishReason } from "./map-finish-reason";
import { renderOpenaiUsage } from "./map-usage";

/** Tools without parameters stream no argument text; OpenAI clients JSON.parse it, so send "{}". */
function normaliseArguments(text: string): string {
  return text.trim() === "" ? "{}" : text;
}

/** IR → OpenAI `chat.completion` object with a fresh `chatcmpl-…` id. */
export function renderOpenaiResponse(response: ChatResponse, model: string): Record<string, unknown> {
  const text = response.content
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("");
  const toolCalls = response.content
    .filter((part) => part.type === "tool-call")
    .map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: normaliseArguments(call.arguments) },
    }));
  return {
    id: newVendorId("chat-completion"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: renderOpenaiFinishReason(response.finishReason),
      },
    ],
    usage: renderOpenaiUsage(response.usage),
  };
}
