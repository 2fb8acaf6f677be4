import { readOpenaiChatUsage } from "../../usage/openai-chat-usage";
import { valueOr } from "../../usage/usage-reading";
import { type ChatResponse, emptyUsage, type ResponsePart } from "../ir";
import { parseUpstreamBody } from "../parse-body";
import { parseOpenaiFinishReason } from "./map-finish-reason";
import { parseImageUrl } from "./parse-request";
import { openaiResponseSchema } from "./schemas";

/** Non-streaming OpenAI chat.completion → IR. Only the first choice is read (we never send n > 1). */
export function parseOpenaiResponse(body: unknown): ChatResponse {
  const response = parseUpstreamBody(openaiResponseSchema, body);
  const [choice] = response.choices;
  const message = choice?.message;
  const content: ResponsePart[] = [];
  const reasoning = message?.reasoning_content ?? message?.reasoning;
  if (reasoning) content.push({ type: "reasoning", text: reasoning });
  if (message?.content) content.push({ type: "text", text: message.content });
  if (message?.refusal) content.push({ type: "text", text: message.refusal });
  for (const image of message?.images ?? [])
    content.push({ type: "image", source: parseImageUrl(image.image_url.url) });
  for (const call of message?.tool_calls ?? []) {
    content.push({
      type: "tool-call",
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  const reading = valueOr(readOpenaiChatUsage(response.usage), {
    usage: emptyUsage,
    reasoningTokens: undefined,
  });
  // A refusal without a finish reason saying so is still a refusal to the caller.
  const finishReason = message?.refusal ? "content-filter" : parseOpenaiFinishReason(choice?.finish_reason);
  return {
    id: response.id ?? undefined,
    content,
    finishReason,
    stopSequence: undefined,
    usage: reading.usage,
    reasoningTokens: reading.reasoningTokens,
  };
}
