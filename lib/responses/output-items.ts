import { isRecord, safeParseJson } from "../dialects/translate/json-value";
import { newVendorId } from "../dialects/translate/new-id";
import { newItemId } from "./new-item-id";
import { customInputField, type ToolTargets, toolTargetOf } from "./tool-targets";
import type {
  CustomToolCallItem,
  FunctionCallItem,
  ItemStatus,
  MessageItem,
  ReasoningItem,
} from "./wire-types";

export function messageItem(id: string, text: string, status: ItemStatus): MessageItem {
  return {
    type: "message",
    id,
    role: "assistant",
    status,
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

export function reasoningItem(id: string, text: string, status: ItemStatus): ReasoningItem {
  return { type: "reasoning", id, summary: [], content: [{ type: "reasoning_text", text }], status };
}

/** A custom tool's input comes back inside `{"input": …}`; anything else is passed on as sent. */
function customInput(argumentsText: string): string {
  const parsed = safeParseJson(argumentsText);
  const value = isRecord(parsed) ? parsed[customInputField] : undefined;
  return typeof value === "string" ? value : argumentsText;
}

export interface ChatToolCallParts {
  /** Some OpenAI-compatible servers omit the id; the client needs one to answer the call. */
  callId: string | null | undefined;
  chatName: string;
  argumentsText: string;
}

/** A finished chat tool call as the Responses item for the tool the caller offered. */
export function toolCallItem(
  targets: ToolTargets,
  call: ChatToolCallParts,
  itemId?: string,
): FunctionCallItem | CustomToolCallItem {
  const target = toolTargetOf(targets, call.chatName);
  const callId = call.callId || newVendorId("openai-tool-call");
  if (target.kind === "custom") {
    return {
      type: "custom_tool_call",
      id: itemId ?? newItemId("ctc"),
      call_id: callId,
      name: target.name,
      input: customInput(call.argumentsText),
    };
  }
  return {
    type: "function_call",
    id: itemId ?? newItemId("fc"),
    call_id: callId,
    name: target.name,
    ...(target.namespace ? { namespace: target.namespace } : {}),
    arguments: call.argumentsText,
    status: "completed",
  };
}
