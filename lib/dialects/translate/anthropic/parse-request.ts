import { badRequest } from "../../../errors/gateway-error";
import type {
  AssistantPart,
  ChatRequest,
  ImagePart,
  Message,
  Reasoning,
  ResponseFormat,
  TextPart,
  ToolChoice,
  UserPart,
} from "../ir";
import { optional } from "../optional-field";
import { parseRequestBody } from "../parse-body";
import {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicRequest,
  anthropicRequestSchema,
} from "./schemas";

type ImageBlock = Extract<AnthropicBlock, { type: "image" }>;

function toImagePart(block: ImageBlock): ImagePart {
  const { source } = block;
  return {
    type: "image",
    source:
      source.type === "base64"
        ? { type: "base64", mediaType: source.media_type, data: source.data }
        : { type: "url", url: source.url },
  };
}

function toUserParts(content: AnthropicMessage["content"]): UserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts: UserPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case "text":
        parts.push({ type: "text", text: block.text });
        break;
      case "image":
        parts.push(toImagePart(block));
        break;
      case "tool_result": {
        const inner = block.content ?? [];
        parts.push({
          type: "tool-result",
          toolCallId: block.tool_use_id,
          content:
            typeof inner === "string"
              ? [{ type: "text", text: inner }]
              : inner.map((item) =>
                  item.type === "text" ? { type: "text", text: item.text } : toImagePart(item),
                ),
          isError: block.is_error ?? false,
        });
        break;
      }
      default:
        throw badRequest(`a user message cannot contain a ${block.type} block`);
    }
  }
  return parts;
}

function toAssistantParts(content: AnthropicMessage["content"]): AssistantPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts: AssistantPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case "text":
        parts.push({ type: "text", text: block.text });
        break;
      case "tool_use":
        parts.push({
          type: "tool-call",
          id: block.id,
          name: block.name,
          arguments: JSON.stringify(block.input ?? {}),
        });
        break;
      case "thinking":
      case "redacted_thinking":
        // Thinking is signed by Anthropic and meaningless to another vendor's model.
        break;
      default:
        throw badRequest(`an assistant message cannot contain a ${block.type} block`);
    }
  }
  return parts;
}

function toToolChoice(choice: AnthropicRequest["tool_choice"]): ToolChoice | undefined {
  switch (choice?.type) {
    case undefined:
      return undefined;
    case "auto":
      return { type: "auto" };
    case "none":
      return { type: "none" };
    case "any":
      return { type: "required" };
    case "tool":
      if (!choice.name) throw badRequest("tool_choice.name is required when tool_choice.type is tool");
      return { type: "tool", name: choice.name };
  }
}

/** `output_config.format` (or the beta's `output_format`): the answer is JSON text matching the schema. */
function toResponseFormat(request: AnthropicRequest): ResponseFormat | undefined {
  const format = request.output_config?.format ?? request.output_format;
  if (!format) return undefined;
  return { type: "json_schema", name: "response", schema: format.schema };
}

/** A thinking budget as is; adaptive thinking at the effort asked (medium by default). */
function toReasoning(request: AnthropicRequest): Reasoning | undefined {
  const { thinking } = request;
  const effort = request.output_config?.effort;
  if (thinking?.type === "enabled") return { budgetTokens: thinking.budget_tokens };
  if (thinking?.type === "disabled") return undefined;
  if (thinking?.type === "adaptive" || effort)
    return { effort: effort === "max" ? "high" : (effort ?? "medium") };
  return undefined;
}

/** Anthropic Messages request → IR. */
export function parseAnthropicRequest(body: unknown): ChatRequest {
  const request = parseRequestBody(anthropicRequestSchema, body);
  const system: TextPart[] =
    typeof request.system === "string"
      ? [{ type: "text", text: request.system }]
      : (request.system ?? []).map((block) => ({ type: "text", text: block.text }));
  const messages: Message[] = request.messages.map((message) =>
    message.role === "user"
      ? { role: "user", content: toUserParts(message.content) }
      : { role: "assistant", content: toAssistantParts(message.content) },
  );
  return {
    model: request.model ?? "",
    system,
    messages,
    tools: (request.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description ?? undefined,
      parameters: tool.input_schema,
    })),
    toolChoice: toToolChoice(request.tool_choice),
    parallelToolCalls: request.tool_choice?.disable_parallel_tool_use ? false : undefined,
    maxTokens: request.max_tokens ?? undefined,
    temperature: request.temperature ?? undefined,
    topP: request.top_p ?? undefined,
    stopSequences: request.stop_sequences ?? [],
    stream: request.stream ?? false,
    user: request.metadata?.user_id ?? undefined,
    ...optional("responseFormat", toResponseFormat(request)),
    ...optional("reasoning", toReasoning(request)),
  };
}
