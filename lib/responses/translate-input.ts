import { badRequest } from "../errors/gateway-error";
import type { ChatContentPart, ChatMessage, ChatToolCall } from "./chat-types";
import type { ContentPart, InputItem } from "./request-schema";
import { chatToolName, customInputField } from "./tool-targets";

type MessageInput = Extract<InputItem, { type: "message" }>;
type ToolOutput = Extract<InputItem, { type: "function_call_output" }>["output"];

type ImageDetail = "auto" | "low" | "high";

/** Responses also knows `original`; Chat Completions does not, so it falls back to the default. */
function imageDetail(value: string | null | undefined): ImageDetail | undefined {
  return value === "auto" || value === "low" || value === "high" ? value : undefined;
}

function unsupportedPart(part: ContentPart, where: string): never {
  throw badRequest(
    `${where}: content of type ${part.type} is not supported; send input_text or input_image (by URL or data URL)`,
    { param: "input" },
  );
}

function toChatPart(part: ContentPart, where: string): ChatContentPart {
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
      return { type: "image_url", image_url: { url: part.image_url, ...(detail ? { detail } : {}) } };
    }
    default:
      return unsupportedPart(part, where);
  }
}

function textOnly(content: MessageInput["content"], where: string): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => {
      const chat = toChatPart(part, where);
      if (chat.type !== "text") throw badRequest(`${where}: images are only allowed in user messages`);
      return chat.text;
    })
    .join("");
}

function userContent(content: MessageInput["content"], where: string): string | ChatContentPart[] {
  if (typeof content === "string") return content;
  return content.map((part) => toChatPart(part, where));
}

/** Collects the chat messages, folding a run of calls into the assistant turn that made them. */
class MessageBuilder {
  readonly messages: ChatMessage[] = [];
  /** Images a tool returned; a chat tool message holds text only, so they follow as a user turn. */
  #toolImages: ChatContentPart[] = [];

  add(message: ChatMessage): void {
    this.flushToolImages();
    this.messages.push(message);
  }

  addToolCall(call: ChatToolCall): void {
    this.flushToolImages();
    const last = this.messages.at(-1);
    if (last?.role === "assistant") {
      last.tool_calls = [...(last.tool_calls ?? []), call];
      return;
    }
    this.messages.push({ role: "assistant", content: null, tool_calls: [call] });
  }

  addToolOutput(callId: string, output: ToolOutput, where: string): void {
    let text: string;
    if (typeof output === "string") text = output;
    else {
      const parts = output.map((part) => toChatPart(part, where));
      text = parts.map((part) => (part.type === "text" ? part.text : "")).join("");
      this.#toolImages.push(...parts.filter((part) => part.type === "image_url"));
    }
    this.messages.push({ role: "tool", tool_call_id: callId, content: text });
  }

  finish(): ChatMessage[] {
    this.flushToolImages();
    return this.messages;
  }

  private flushToolImages(): void {
    if (this.#toolImages.length === 0) return;
    this.messages.push({ role: "user", content: this.#toolImages });
    this.#toolImages = [];
  }
}

function addMessage(builder: MessageBuilder, item: MessageInput, where: string): void {
  switch (item.role) {
    case "system":
    case "developer":
      // `developer` is OpenAI-only; `system` means the same to every other upstream.
      builder.add({ role: "system", content: textOnly(item.content, where) });
      return;
    case "user":
      builder.add({ role: "user", content: userContent(item.content, where) });
      return;
    case "assistant":
      builder.add({ role: "assistant", content: textOnly(item.content, where) });
      return;
  }
}

/**
 * Responses `instructions` + `input` → Chat Completions messages. The whole conversation
 * arrives in every request (the gateway is stateless), so this is a pure mapping.
 */
export function translateInput(
  instructions: string | null | undefined,
  input: string | InputItem[],
): ChatMessage[] {
  const builder = new MessageBuilder();
  if (instructions) builder.add({ role: "system", content: instructions });
  if (typeof input === "string") {
    builder.add({ role: "user", content: input });
    return builder.finish();
  }
  for (const [index, item] of input.entries()) {
    const where = `input[${index}]`;
    switch (item.type) {
      case "message":
        addMessage(builder, item, where);
        break;
      case "function_call":
        builder.addToolCall({
          id: item.call_id,
          type: "function",
          function: { name: chatToolName(item.name, item.namespace), arguments: item.arguments },
        });
        break;
      case "custom_tool_call":
        builder.addToolCall({
          id: item.call_id,
          type: "function",
          function: { name: item.name, arguments: JSON.stringify({ [customInputField]: item.input }) },
        });
        break;
      case "function_call_output":
      case "custom_tool_call_output":
        builder.addToolOutput(item.call_id, item.output, where);
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
  const messages = builder.finish();
  if (!messages.some((message) => message.role !== "system")) {
    throw badRequest("input must contain at least one message", { param: "input" });
  }
  return messages;
}
