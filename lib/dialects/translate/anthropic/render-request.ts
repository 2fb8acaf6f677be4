import { badRequest } from "../../../errors/gateway-error";
import {
  assertNever,
  type ChatRequest,
  type ImageSource,
  type Message,
  type TextPart,
  type ToolChoice,
} from "../ir";
import { parseArgumentsObject } from "../json-value";
import { structuredOutputTool } from "../structured-output";
import type { TargetModel } from "../target-model";

/** Anthropic requires max_tokens; OpenAI callers often omit it. */
export const defaultMaxTokens = 4096;

type AnthropicWireBlock = Record<string, unknown> & { type: string };
type AnthropicWireMessage = { role: "user" | "assistant"; content: AnthropicWireBlock[] };

export function renderImage(source: ImageSource): AnthropicWireBlock {
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

/** OpenAI's effort levels as thinking budgets (Anthropic's minimum budget is 1024). */
const effortBudgets = { low: 1024, medium: 4096, high: 16384 } as const;
const minimumBudget = 1024;

/**
 * Thinking with a budget below max_tokens, as Anthropic requires: at most half the output
 * limit, so the answer keeps room.
 */
function renderThinking(request: ChatRequest): Record<string, unknown> {
  const { reasoning } = request;
  if (!reasoning) return {};
  const maxTokens = request.maxTokens ?? defaultMaxTokens;
  if (maxTokens <= minimumBudget) {
    throw badRequest(`reasoning on a Claude model needs an output limit above ${minimumBudget} tokens`, {
      param: "max_tokens",
    });
  }
  const asked = "effort" in reasoning ? effortBudgets[reasoning.effort] : reasoning.budgetTokens;
  const budget = Math.max(minimumBudget, Math.min(asked, Math.floor(maxTokens / 2)));
  return { thinking: { type: "enabled", budget_tokens: budget } };
}

/**
 * Structured output: a forced tool whose input is the answer when the caller has no tools of
 * its own (every Claude model can), else `output_config.format` where the model supports it.
 */
function renderStructuredOutput(request: ChatRequest, target: TargetModel): Record<string, unknown> {
  const format = request.responseFormat;
  if (!format) return {};
  const schema = format.type === "json_schema" ? format.schema : { type: "object" };
  const carrier = structuredOutputTool(request);
  if (carrier) {
    return {
      tools: [
        {
          name: carrier,
          description:
            format.type === "json_schema" && format.description
              ? format.description
              : "Give your answer as this tool's input.",
          input_schema: schema,
        },
      ],
      tool_choice: { type: "tool", name: carrier },
    };
  }
  if (!target.structuredOutput) {
    throw badRequest(
      "response_format together with tools or reasoning needs a model with native structured output; this model has none",
      { param: "response_format" },
    );
  }
  return { output_config: { format: { type: "json_schema", schema } } };
}

/** IR → Anthropic Messages request. */
export function renderAnthropicRequest(request: ChatRequest, target: TargetModel): Record<string, unknown> {
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
    ...renderThinking(request),
    ...renderStructuredOutput(request, target),
    ...(request.stream ? { stream: true } : {}),
  };
}
