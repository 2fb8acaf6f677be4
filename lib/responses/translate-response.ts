import { parseUpstreamBody } from "../dialects/translate/parse-body";
import { chatCompletionSchema } from "./chat-response-schema";
import { mapFinishReason } from "./map-finish-reason";
import { mapUsage } from "./map-usage";
import { newItemId } from "./new-item-id";
import { messageItem, reasoningItem, toolCallItem } from "./output-items";
import { newResponseShell, responseObject } from "./response-object";
import type { ResponsesContext } from "./translate-request";
import type { OutputItem, ResponseObject } from "./wire-types";

/**
 * A chat.completion → a Response object. Output order follows what the model produced:
 * reasoning first, then the message, then the calls it made. A refusal is the model's
 * answer and is kept as its text.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export function translateChatCompletion(body: unknown, context: ResponsesContext): ResponseObject {
  const completion = parseUpstreamBody(chatCompletionSchema, body);
  const [choice] = completion.choices;
  const message = choice?.message;
  const outcome = mapFinishReason(choice?.finish_reason);
  const itemStatus = outcome.status === "completed" ? "completed" : "incomplete";
  const output: OutputItem[] = [];

  const reasoning = message?.reasoning_content ?? message?.reasoning;
  if (reasoning) output.push(reasoningItem(newItemId("rs"), reasoning, "completed"));

  const toolCalls = message?.tool_calls ?? [];
  const text = [message?.content, message?.refusal].filter((part) => part).join("");
  // A turn that is only tool calls has no message; any other turn has one, even if empty.
  if (text !== "" || toolCalls.length === 0) output.push(messageItem(newItemId("msg"), text, itemStatus));

  for (const call of toolCalls) {
    output.push(
      toolCallItem(context.targets, {
        callId: call.id,
        chatName: call.function?.name ?? "",
        argumentsText: call.function?.arguments ?? "",
      }),
    );
  }
  return responseObject(newResponseShell(context.echo), {
    status: outcome.status,
    output,
    usage: mapUsage(completion.usage),
    incompleteDetails: outcome.incompleteDetails,
  });
}
