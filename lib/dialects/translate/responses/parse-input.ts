import { badRequest } from "../../../errors/gateway-error";
import type { AssistantPart, ImagePart, Message, TextPart, UserPart } from "../ir";
import { parseImageUrl } from "../openai/parse-request";
import type { ContentPart, InputItem } from "./schemas";
import { customInputField, flatToolName } from "./tool-targets";

type MessageInput = Extract<InputItem, { type: "message" }>;
type ToolOutput = Extract<InputItem, { type: "function_call_output" }>["output"];

/** Responses also knows `original`; the IR keeps only the detail levels every format shares. */
function imageDetail(value: string | null | undefined): ImagePart["detail"] {
  return value === "auto" || value === "low" || value === "high" ? value : undefined;
}

function unsupportedPart(part: ContentPart, where: string): never {
  throw badRequest(
    `${where}: content of type ${part.type} is not supported; send input_text or input_image (by URL or data URL)`,
    { param: "input" },
  );
}

function toPart(part: ContentPart, where: string): TextPart | ImagePart {
  switch (part.type) {
    case "input_text":
    case "output_text":
      return { type: "text", text: part.text };
    case "refusal":
      return { type: "text", text: part.refusal };
    case "input_image": {
      // A file_id points into OpenAI's file store, which no other upstream can read.
      if (!part.image_url) unsupportedPart(part, `${where} (input_image without image_url)`);
      const detail = imageDetail(part.detail);
      return { type: "image", source: parseImageUrl(part.image_url), ...(detail ? { detail } : {}) };
    }
    default:
      return unsupportedPart(part, where);
  }
}

function textOnly(content: MessageInput["content"], where: string): TextPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part) => {
    const converted = toPart(part, where);
    if (converted.type !== "text") throw badRequest(`${where}: images are only allowed in user messages`);
    return converted;
  });
}

function userContent(content: MessageInput["content"], where: string): UserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part) => toPart(part, where));
}

/** Collects the IR conversation, folding a run of calls into the assistant turn that made them. */
class ConversationBuilder {
  readonly system: TextPart[] = [];
  readonly messages: Message[] = [];

  addAssistant(content: AssistantPart[]): void {
    this.messages.push({ role: "assistant", content });
  }

  addUser(content: UserPart[]): void {
    this.messages.push({ role: "user", content });
  }

  addToolCall(part: AssistantPart): void {
    const last = this.messages.at(-1);
    if (last?.role === "assistant") last.content.push(part);
    else this.addAssistant([part]);
  }

  /** Results of one turn's calls share one user turn, which each codec splits as its format needs. */
  addToolResult(callId: string, output: ToolOutput, where: string): void {
    const content =
      typeof output === "string"
        ? [{ type: "text" as const, text: output }]
        : output.map((part) => toPart(part, where));
    const result: UserPart = { type: "tool-result", toolCallId: callId, content, isError: false };
    const last = this.messages.at(-1);
    if (last?.role === "user" && last.content.every((part) => part.type === "tool-result"))
      last.content.push(result);
    else this.addUser([result]);
  }
}

function addMessage(builder: ConversationBuilder, item: MessageInput, where: string): void {
  switch (item.role) {
    case "system":
    case "developer":
      // `developer` is OpenAI-only; `system` means the same to every other upstream.
      builder.system.push(...textOnly(item.content, where));
      return;
    case "user":
      builder.addUser(userContent(item.content, where));
      return;
    case "assistant":
      builder.addAssistant(textOnly(item.content, where));
      return;
  }
}

/**
 * Responses `instructions` + `input` → IR system prompt and messages. The whole conversation
 * arrives in every request (the gateway is stateless), so this is a pure mapping.
 */
export function parseInput(
  instructions: string | null | undefined,
  input: string | InputItem[],
): { system: TextPart[]; messages: Message[] } {
  const builder = new ConversationBuilder();
  if (instructions) builder.system.push({ type: "text", text: instructions });
  if (typeof input === "string") {
    builder.addUser([{ type: "text", text: input }]);
    return builder;
  }
  for (const [index, item] of input.entries()) {
    const where = `input[${index}]`;
    switch (item.type) {
      case "message":
        addMessage(builder, item, where);
        break;
      case "function_call":
        builder.addToolCall({
          type: "tool-call",
          id: item.call_id,
          name: flatToolName(item.name, item.namespace),
          arguments: item.arguments,
        });
        break;
      case "custom_tool_call":
        builder.addToolCall({
          type: "tool-call",
          id: item.call_id,
          name: item.name,
          arguments: JSON.stringify({ [customInputField]: item.input }),
        });
        break;
      case "function_call_output":
      case "custom_tool_call_output":
        builder.addToolResult(item.call_id, item.output, where);
        break;
      case "item_reference":
        throw badRequest(
          `${where}: item_reference is not supported: Pod Gateway stores no items; send the items themselves`,
          { param: "input" },
        );
      default:
        // Reasoning and hosted-tool items (see droppedItemTypes): nothing to replay upstream.
        break;
    }
  }
  if (builder.messages.length === 0) {
    throw badRequest("input must contain at least one message", { param: "input" });
  }
  return builder;
}
