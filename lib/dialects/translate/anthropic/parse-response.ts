import { readAnthropicUsage } from "../../usage/anthropic-messages-usage";
import { valueOr } from "../../usage/usage-reading";
import { type AssistantPart, type ChatResponse, emptyUsage } from "../ir";
import { parseUpstreamBody } from "../parse-body";
import { parseAnthropicStopReason } from "./map-stop-reason";
import { anthropicResponseSchema } from "./schemas";

/** Non-streaming Anthropic message → IR. Thinking and server-tool blocks are dropped. */
export function parseAnthropicResponse(body: unknown): ChatResponse {
  const response = parseUpstreamBody(anthropicResponseSchema, body);
  const content: AssistantPart[] = [];
  for (const block of response.content) {
    if (block.type === "text" && block.text) content.push({ type: "text", text: block.text });
    if (block.type === "tool_use" && block.id && block.name) {
      content.push({
        type: "tool-call",
        id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  return {
    id: response.id ?? undefined,
    content,
    finishReason: parseAnthropicStopReason(response.stop_reason),
    stopSequence: response.stop_sequence ?? undefined,
    usage: valueOr(readAnthropicUsage(response.usage), emptyUsage),
  };
}
