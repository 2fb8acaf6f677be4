import { badRequest } from "../../../errors/gateway-error";
import type {
  AssistantPart,
  ChatRequest,
  ImageSource,
  Message,
  ResponseFormat,
  TextPart,
  ToolChoice,
  ToolDefinition,
  UserPart,
} from "../ir";
import { optional } from "../optional-field";
import { parseRequestBody } from "../parse-body";
import { reasoningFromEffort } from "../reasoning-effort";
import { type OpenaiMessage, type OpenaiRequest, openaiRequestSchema } from "./schemas";

type ContentOf<Role extends OpenaiMessage["role"]> = Extract<OpenaiMessage, { role: Role }>["content"];

function toTextParts(content: ContentOf<"system" | "tool">): TextPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part) => ({ type: "text", text: part.text }));
}

/** `data:<media>;base64,<data>` becomes inline base64; any other URL is passed by reference. */
export function parseImageUrl(url: string): ImageSource {
  if (!url.startsWith("data:")) return { type: "url", url };
  const match = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,(.*)$/s.exec(url);
  if (!match?.[1] || match[2] === undefined) throw badRequest("image data URLs must be base64-encoded");
  return { type: "base64", mediaType: match[1], data: match[2] };
}

function toUserParts(content: ContentOf<"user">): UserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part) => {
    if (part.type === "text") return { type: "text", text: part.text };
    const detail = part.image_url.detail;
    return {
      type: "image",
      source: parseImageUrl(part.image_url.url),
      ...(detail === "auto" || detail === "low" || detail === "high" ? { detail } : {}),
    };
  });
}

function toAssistantParts(message: Extract<OpenaiMessage, { role: "assistant" }>): AssistantPart[] {
  const parts: AssistantPart[] = [];
  const { content } = message;
  if (typeof content === "string") parts.push({ type: "text", text: content });
  else if (content) {
    for (const part of content)
      parts.push({ type: "text", text: part.type === "text" ? part.text : part.refusal });
  }
  // A refusal is what the model said; dropping it would leave the history inconsistent.
  if (message.refusal) parts.push({ type: "text", text: message.refusal });
  for (const call of message.tool_calls ?? []) {
    parts.push({
      type: "tool-call",
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return parts;
}

function toToolChoice(choice: OpenaiRequest["tool_choice"]): ToolChoice | undefined {
  if (choice === null || choice === undefined) return undefined;
  if (choice === "auto") return { type: "auto" };
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "required" };
  if (choice.type === "allowed_tools") return { type: choice.allowed_tools.mode };
  return { type: "tool", name: choice.function.name };
}

/** `allowed_tools` narrows the tools offered; the other format has no such choice, so only those are sent. */
function toTools(request: OpenaiRequest): ToolDefinition[] {
  const choice = request.tool_choice;
  const allowed =
    typeof choice === "object" && choice?.type === "allowed_tools"
      ? new Set(choice.allowed_tools.tools.map((tool) => tool.function.name))
      : undefined;
  return (request.tools ?? [])
    .filter(({ function: tool }) => !allowed || allowed.has(tool.name))
    .map(({ function: tool }) => ({
      name: tool.name,
      description: tool.description ?? undefined,
      parameters: tool.parameters ?? { type: "object", properties: {} },
      ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
    }));
}

function toResponseFormat(format: OpenaiRequest["response_format"]): ResponseFormat | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  const { name, schema, description, strict } = format.json_schema;
  return {
    type: "json_schema",
    name,
    schema: schema ?? { type: "object" },
    ...(description ? { description } : {}),
    ...(typeof strict === "boolean" ? { strict } : {}),
  };
}

/** OpenAI Chat Completions request → IR. System and developer messages are hoisted. */
export function parseOpenaiRequest(body: unknown): ChatRequest {
  const request = parseRequestBody(openaiRequestSchema, body);
  const system: TextPart[] = [];
  const messages: Message[] = [];
  for (const message of request.messages) {
    switch (message.role) {
      case "system":
      case "developer":
        system.push(...toTextParts(message.content));
        break;
      case "user":
        messages.push({ role: "user", content: toUserParts(message.content) });
        break;
      case "assistant":
        messages.push({ role: "assistant", content: toAssistantParts(message) });
        break;
      case "tool":
        messages.push({
          role: "user",
          content: [
            {
              type: "tool-result",
              toolCallId: message.tool_call_id,
              content: toTextParts(message.content),
              isError: false,
            },
          ],
        });
        break;
    }
  }
  const stop = request.stop;
  return {
    model: request.model ?? "",
    system,
    messages,
    tools: toTools(request),
    toolChoice: toToolChoice(request.tool_choice),
    parallelToolCalls: request.parallel_tool_calls ?? undefined,
    maxTokens: request.max_completion_tokens ?? request.max_tokens ?? undefined,
    temperature: request.temperature ?? undefined,
    topP: request.top_p ?? undefined,
    stopSequences: stop === null || stop === undefined ? [] : typeof stop === "string" ? [stop] : stop,
    stream: request.stream ?? false,
    user: request.user ?? undefined,
    ...optional("responseFormat", toResponseFormat(request.response_format)),
    ...optional("reasoning", reasoningFromEffort(request.reasoning_effort)),
  };
}
