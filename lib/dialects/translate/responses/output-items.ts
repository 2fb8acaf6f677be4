import type { ToolCallPart } from "../ir";
import { isRecord, safeParseJson } from "../json-value";
import { newVendorId } from "../new-id";
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

/**
 * A finished IR tool call (its `name` is the flat name the upstream saw) as the Responses
 * item for the tool the caller offered.
 */
export function toolCallItem(
  targets: ToolTargets,
  call: Pick<ToolCallPart, "id" | "name" | "arguments">,
  itemId?: string,
): FunctionCallItem | CustomToolCallItem {
  const target = toolTargetOf(targets, call.name);
  // Some OpenAI-compatible servers omit the id; the client needs one to answer the call.
  const callId = call.id || newVendorId("openai-tool-call");
  if (target.kind === "custom") {
    return {
      type: "custom_tool_call",
      id: itemId ?? newItemId("ctc"),
      call_id: callId,
      name: target.name,
      input: customInput(call.arguments),
    };
  }
  return {
    type: "function_call",
    id: itemId ?? newItemId("fc"),
    call_id: callId,
    name: target.name,
    ...(target.namespace ? { namespace: target.namespace } : {}),
    arguments: call.arguments,
    status: "completed",
  };
}
