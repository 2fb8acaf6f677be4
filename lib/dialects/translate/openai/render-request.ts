import { badRequest } from "../../../errors/gateway-error";
import type {
  AssistantPart,
  ChatRequest,
  ImagePart,
  ImageSource,
  Reasoning,
  ResponseFormat,
  TextPart,
  ToolChoice,
  UserPart,
} from "../ir";

type OpenaiContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } };
type OpenaiWireMessage = Record<string, unknown>;

function imageUrl(source: ImageSource): string {
  return source.type === "url" ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

function joinText(parts: TextPart[]): string {
  return parts.map((part) => part.text).join("\n\n");
}

function renderContent(parts: Array<TextPart | ImagePart>): string | OpenaiContentPart[] {
  // Plain strings are what every OpenAI-compatible server accepts; arrays only when needed.
  if (parts.every((part) => part.type === "text")) return joinText(parts);
  return parts.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : {
          type: "image_url",
          image_url: { url: imageUrl(part.source), ...(part.detail ? { detail: part.detail } : {}) },
        },
  );
}

/**
 * One Anthropic user turn can become several OpenAI messages: each tool_result is its own
 * `tool` message (they must directly follow the assistant's tool_calls), then the rest.
 */
function renderUserMessage(content: UserPart[]): OpenaiWireMessage[] {
  const toolMessages: OpenaiWireMessage[] = [];
  const rest: Array<TextPart | ImagePart> = [];
  for (const part of content) {
    if (part.type !== "tool-result") {
      rest.push(part);
      continue;
    }
    const texts = part.content.filter((item): item is TextPart => item.type === "text");
    const text = joinText(texts);
    toolMessages.push({
      role: "tool",
      tool_call_id: part.toolCallId,
      // OpenAI has no is_error flag; say so in-band so the model still knows the call failed.
      content: part.isError ? `Error: ${text}` : text,
    });
    // Tool messages are text-only in OpenAI; images from a tool result follow as user content.
    rest.push(...part.content.filter((item): item is ImagePart => item.type === "image"));
  }
  if (rest.length === 0) return toolMessages;
  return [...toolMessages, { role: "user", content: renderContent(rest) }];
}

function renderAssistantMessage(content: AssistantPart[]): OpenaiWireMessage {
  const text = joinText(content.filter((part): part is TextPart => part.type === "text"));
  const toolCalls = content
    .filter((part) => part.type === "tool-call")
    .map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  return {
    role: "assistant",
    content: text === "" && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

function renderToolChoice(choice: ToolChoice): unknown {
  if (choice.type === "tool") return { type: "function", function: { name: choice.name } };
  return choice.type;
}

function renderResponseFormat(format: ResponseFormat): Record<string, unknown> {
  if (format.type === "json_object") return { type: "json_object" };
  const { name, schema, description, strict } = format;
  return {
    type: "json_schema",
    json_schema: {
      name,
      schema,
      ...(description === undefined ? {} : { description }),
      ...(strict === undefined ? {} : { strict }),
    },
  };
}

/** A thinking budget as the nearest effort level (the levels Anthropic's docs pair with budgets). */
function renderReasoningEffort(reasoning: Reasoning): string {
  if ("effort" in reasoning) return reasoning.effort;
  if (reasoning.budgetTokens < 2048) return "low";
  return reasoning.budgetTokens < 8192 ? "medium" : "high";
}

/** OpenAI's own limit on stop sequences. */
const maxStopSequences = 4;

/**
 * IR → OpenAI Chat Completions request. Uses max_completion_tokens because OpenAI's
 * reasoning models reject max_tokens; streaming always asks for the usage chunk (billing).
 */
export function renderOpenaiRequest(request: ChatRequest): Record<string, unknown> {
  if (request.stopSequences.length > maxStopSequences) {
    throw badRequest(`stop_sequences: OpenAI-format models take at most ${maxStopSequences}`, {
      param: "stop_sequences",
    });
  }
  const messages: OpenaiWireMessage[] = [];
  if (request.system.length > 0) messages.push({ role: "system", content: joinText(request.system) });
  for (const message of request.messages) {
    if (message.role === "user") messages.push(...renderUserMessage(message.content));
    // A turn that held only thinking blocks has nothing OpenAI can use.
    else if (message.content.length > 0) messages.push(renderAssistantMessage(message.content));
  }
  const hasTools = request.tools.length > 0;
  return {
    model: request.model,
    messages,
    ...(hasTools
      ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            function: {
              name: tool.name,
              ...(tool.description === undefined ? {} : { description: tool.description }),
              parameters: tool.parameters,
              ...(tool.strict === undefined ? {} : { strict: tool.strict }),
            },
          })),
        }
      : {}),
    // OpenAI rejects tool_choice and parallel_tool_calls when no tools are given.
    ...(hasTools && request.toolChoice ? { tool_choice: renderToolChoice(request.toolChoice) } : {}),
    ...(hasTools && request.parallelToolCalls !== undefined
      ? { parallel_tool_calls: request.parallelToolCalls }
      : {}),
    ...(request.maxTokens === undefined ? {} : { max_completion_tokens: request.maxTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
    ...(request.stopSequences.length > 0 ? { stop: request.stopSequences } : {}),
    ...(request.user === undefined ? {} : { user: request.user }),
    ...(request.responseFormat ? { response_format: renderResponseFormat(request.responseFormat) } : {}),
    ...(request.reasoning ? { reasoning_effort: renderReasoningEffort(request.reasoning) } : {}),
    ...(request.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}
