import type { ChatResponse, ToolCallPart } from "../ir";
import { renderResponsesOutcome } from "./map-finish-reason";
import { renderResponsesUsage } from "./map-usage";
import { newItemId } from "./new-item-id";
import { messageItem, reasoningItem, toolCallItem } from "./output-items";
import type { ResponsesContext } from "./parse-request";
import { newResponseShell, responseObject } from "./response-object";
import type { OutputItem, ResponseObject } from "./wire-types";

/**
 * IR response → a Response object. Output order follows what the model produced: reasoning
 * first, then the message, then the calls it made.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export function renderResponsesResponse(response: ChatResponse, context: ResponsesContext): ResponseObject {
  const outcome = renderResponsesOutcome(response.finishReason);
  const itemStatus = outcome.status === "completed" ? "completed" : "incomplete";
  const output: OutputItem[] = [];

  const reasoning = response.content
    .flatMap((part) => (part.type === "reasoning" ? [part.text] : []))
    .join("");
  if (reasoning) output.push(reasoningItem(newItemId("rs"), reasoning, "completed"));

  const toolCalls = response.content.filter((part): part is ToolCallPart => part.type === "tool-call");
  const text = response.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  // A turn that is only tool calls has no message; any other turn has one, even if empty.
  if (text !== "" || toolCalls.length === 0) output.push(messageItem(newItemId("msg"), text, itemStatus));

  // Images the model made (base64 only: the Responses item has no URL form; a linked one is left out).
  for (const part of response.content) {
    if (part.type === "image" && part.source.type === "base64")
      output.push({
        type: "image_generation_call",
        id: newItemId("ig"),
        status: "completed",
        result: part.source.data,
      });
  }
  for (const call of toolCalls) output.push(toolCallItem(context.targets, call));
  return responseObject(newResponseShell(context.echo), {
    status: outcome.status,
    output,
    usage: renderResponsesUsage(response.usage, response.reasoningTokens),
    incompleteDetails: outcome.incompleteDetails,
  });
}
