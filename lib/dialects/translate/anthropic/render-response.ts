import type { ChatResponse } from "../ir";
import { parseArgumentsObject } from "../json-value";
import { newVendorId } from "../new-id";
import { renderAnthropicStopReason } from "./map-stop-reason";
import { renderAnthropicUsage } from "./map-usage";
import { renderImage } from "./render-request";

/** IR → Anthropic `message` object with a fresh `msg_…` id. */
export function renderAnthropicResponse(response: ChatResponse, model: string): Record<string, unknown> {
  const content = response.content.flatMap((part): Array<Record<string, unknown>> => {
    if (part.type === "text") return part.text === "" ? [] : [{ type: "text", text: part.text }];
    // A thinking block needs a signature Anthropic clients verify; OpenAI reasoning has none.
    if (part.type === "reasoning") return [];
    // An image the model made: Anthropic's image block, the shape its clients already read.
    if (part.type === "image") return [renderImage(part.source)];
    return [{ type: "tool_use", id: part.id, name: part.name, input: parseArgumentsObject(part.arguments) }];
  });
  const stopReason = renderAnthropicStopReason(response.finishReason);
  return {
    id: newVendorId("message"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === "stop_sequence" ? (response.stopSequence ?? null) : null,
    usage: renderAnthropicUsage(response.usage),
  };
}
