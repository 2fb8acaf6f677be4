import {
  assertNever,
  type ChatRequest,
  type ImageSource,
  type Message,
  type TextPart,
  type ToolChoice,
} from "../ir";
import { parseArgumentsObject } from "../json-value";

/** Anthropic requires max_tokens; OpenAI callers often omit it. */
export const defaultMaxTokens = 4096;

type AnthropicWireBlock = Record<string, unknown> & { type: string };
type AnthropicWireMessage = { role: "user" | "assistant"; content: AnthropicWireBlock[] };

function renderImage(source: ImageSource): AnthropicWireBlock {
  return {
    type: "image",
    source:
      source.type === "base64"
        ? { type: "base64", media_type: source.mediaType, data: source.data }
        : { type: "url", url: source.url },
  };
}

function renderText(part: TextPart): AnthropicWireBlock[] {
  // Anthropic rejects empty text blocks ("text content blocks must be non-empty").
  return part.text === "" ? [] : [{ type: "text", text: part.text }];
}

function renderBlocks(message: Message): AnthropicWireBlock[] {
  return message.content.flatMap((part): AnthropicWireBlock[] => {
    switch (part.type) {
      case "text":
        return renderText(part);
      case "image":
        return [renderImage(part.source)];
      case "tool-call":
        return [
          { type: "tool_use", id: part.id, name: part.name, input: parseArgumentsObject(part.arguments) },
        ];
      case "tool-result": {
        const content = part.content.flatMap((item) =>
          item.type === "text" ? renderText(item) : [renderImage(item.source)],
        );
        return [
          {
            type: "tool_result",
            tool_use_id: part.toolCallId,
            ...(content.length > 0 ? { content } : {}),
            ...(part.isError ? { is_error: true } : {}),
          },
        ];
      }
      default:
        return assertNever(part);
    }
  });
}

/**
 * Anthropic wants strictly alternating turns, tool_result blocks first in their user turn,
 * and no empty turns. OpenAI sends one `tool` message per result, so merge here.
 */
function renderMessages(messages: Message[]): AnthropicWireMessage[] {
  const rendered: AnthropicWireMessage[] = [];
  for (const message of messages) {
    const blocks = renderBlocks(message);
    if (blocks.length === 0) continue;
    const previous = rendered.at(-1);
    if (previous?.role === message.role) previous.content.push(...blocks);
    else rendered.push({ role: message.role, content: blocks });
  }
  for (const message of rendered) {
    if (message.role !== "user") continue;
    const results = message.content.filter((block) => block.type === "tool_result");
    if (results.length === 0) continue;
    message.content = [...results, ...message.content.filter((block) => block.type !== "tool_result")];
  }
  return rendered;
}

function hasToolHistory(messages: Message[]): boolean {
  return messages.some((message) =>
    message.content.some((part) => part.type === "tool-call" || part.type === "tool-result"),
  );
}

function renderToolChoice(
  choice: ToolChoice | undefined,
  disableParallel: boolean,
): Record<string, unknown> | undefined {
  const parallel = disableParallel ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return disableParallel ? { type: "auto", ...parallel } : undefined;
    case "auto":
      return { type: "auto", ...parallel };
    case "required":
      return { type: "any", ...parallel };
    case "tool":
      return { type: "tool", name: choice.name, ...parallel };
    case "none":
      return { type: "none" };
  }
}

/** IR → Anthropic Messages request. */
export function renderAnthropicRequest(request: ChatRequest): Record<string, unknown> {
  // tool_choice "none" is expressed by omitting tools, unless the history holds tool blocks:
  // Anthropic rejects tool_use/tool_result without tool definitions, so then send type "none".
  const omitTools = request.toolChoice?.type === "none" && !hasToolHistory(request.messages);
  const tools = omitTools ? [] : request.tools;
  const toolChoice =
    tools.length > 0 ? renderToolChoice(request.toolChoice, request.parallelToolCalls === false) : undefined;
  const system = request.system.flatMap(renderText);
  // Newer Claude models reject temperature together with top_p; temperature is the one callers tune.
  const topP = request.temperature === undefined ? request.topP : undefined;
  return {
    model: request.model,
    max_tokens: request.maxTokens ?? defaultMaxTokens,
    ...(system.length > 0 ? { system } : {}),
    messages: renderMessages(request.messages),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            input_schema: tool.parameters,
          })),
        }
      : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    // OpenAI's temperature range is 0–2, Anthropic's 0–1; clamp rather than fail the request.
    ...(request.temperature === undefined
      ? {}
      : { temperature: Math.min(1, Math.max(0, request.temperature)) }),
    ...(topP === undefined ? {} : { top_p: topP }),
    ...(request.stopSequences.length > 0 ? { stop_sequences: request.stopSequences } : {}),
    ...(request.user === undefined ? {} : { metadata: { user_id: request.user } }),
    ...(request.stream ? { stream: true } : {}),
  };
}
