import { parseRequestBody } from "../dialects/translate/parse-body";
import { badRequest } from "../errors/gateway-error";
import { type ResponsesRequest, responsesRequestSchema, type TextFormat } from "./request-schema";
import type { ToolTargets } from "./tool-targets";
import { translateInput } from "./translate-input";
import { translateTools } from "./translate-tools";
import type { ResponseEcho } from "./wire-types";

/** What the response side needs to know about the request it answers. */
export interface ResponsesContext {
  stream: boolean;
  echo: ResponseEcho;
  targets: ToolTargets;
}

export interface TranslatedResponsesRequest {
  /** An OpenAI Chat Completions body for the gateway's ordinary inference path. */
  chatBody: Record<string, unknown>;
  context: ResponsesContext;
}

export const previousResponseIdMessage =
  "previous_response_id is not supported: Pod Gateway stores no responses; send the full conversation (store: false)";

/** Features that need server-side state, which a stateless gateway cannot offer: a 400 each. */
function rejectStatefulFeatures(request: ResponsesRequest): void {
  if (request.previous_response_id) {
    throw badRequest(previousResponseIdMessage, { param: "previous_response_id" });
  }
  if (request.conversation !== undefined && request.conversation !== null) {
    throw badRequest(
      "conversation is not supported: Pod Gateway stores no conversations; send the full conversation as input",
      { param: "conversation" },
    );
  }
  if (request.background === true) {
    throw badRequest("background is not supported: Pod Gateway stores no responses to poll", {
      param: "background",
    });
  }
  if (request.prompt !== undefined && request.prompt !== null) {
    throw badRequest("prompt templates are not supported: send instructions and input instead", {
      param: "prompt",
    });
  }
}

/** `text.format` → `response_format`; plain text needs no field at all. */
function responseFormat(format: TextFormat | null | undefined): Record<string, unknown> | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  return {
    type: "json_schema",
    json_schema: {
      name: format.name,
      schema: format.schema,
      ...(format.description ? { description: format.description } : {}),
      ...(typeof format.strict === "boolean" ? { strict: format.strict } : {}),
    },
  };
}

/**
 * A Responses API request → a Chat Completions body plus the context to answer it.
 * `reasoning`, `include`, `store`, `truncation` and other unknown fields are accepted and
 * ignored; `store` is always answered as false because nothing is kept.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export function translateResponsesRequest(body: unknown): TranslatedResponsesRequest {
  const request = parseRequestBody(responsesRequestSchema, body);
  rejectStatefulFeatures(request);
  const messages = translateInput(request.instructions, request.input);
  const tools = translateTools(request.tools, request.tool_choice);
  const format = responseFormat(request.text?.format);
  const stream = request.stream === true;
  const hasTools = tools.chatTools.length > 0;

  const chatBody: Record<string, unknown> = {
    model: request.model,
    messages,
    ...(stream ? { stream: true } : {}),
    // The Chat Completions name for the same limit; OpenAI's reasoning models refuse max_tokens.
    ...(request.max_output_tokens ? { max_completion_tokens: request.max_output_tokens } : {}),
    ...(typeof request.temperature === "number" ? { temperature: request.temperature } : {}),
    ...(typeof request.top_p === "number" ? { top_p: request.top_p } : {}),
    ...(hasTools ? { tools: tools.chatTools } : {}),
    ...(tools.chatToolChoice ? { tool_choice: tools.chatToolChoice } : {}),
    ...(hasTools && typeof request.parallel_tool_calls === "boolean"
      ? { parallel_tool_calls: request.parallel_tool_calls }
      : {}),
    ...(format ? { response_format: format } : {}),
    ...(request.user ? { user: request.user } : {}),
  };

  const echo: ResponseEcho = {
    model: request.model,
    instructions: request.instructions ?? null,
    tools: tools.offeredTools,
    tool_choice: request.tool_choice ?? "auto",
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    text: { format: request.text?.format ?? { type: "text" } },
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    metadata: request.metadata ?? {},
    user: request.user ?? null,
  };
  return { chatBody, context: { stream, echo, targets: tools.targets } };
}
