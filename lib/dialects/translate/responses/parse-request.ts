import { badRequest } from "../../../errors/gateway-error";
import type { ChatRequest, ResponseFormat } from "../ir";
import { optional } from "../optional-field";
import { parseRequestBody } from "../parse-body";
import { reasoningFromEffort } from "../reasoning-effort";
import { parseInput } from "./parse-input";
import { parseTools } from "./parse-tools";
import { type ResponsesRequest, responsesRequestSchema, type TextFormat } from "./schemas";
import type { ToolTargets } from "./tool-targets";
import type { ResponseEcho } from "./wire-types";

/** What the answer needs to know about the request it answers: the echo and the tool map. */
export interface ResponsesContext {
  echo: ResponseEcho;
  targets: ToolTargets;
}

interface ParsedResponsesRequest {
  request: ChatRequest;
  context: ResponsesContext;
}

/**
 * Features that need state the gateway does not keep: a 400 each. (`previous_response_id` is
 * resolved before this codec runs, on the token routes that store responses.)
 */
function rejectStatefulFeatures(request: ResponsesRequest): void {
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

/** `text.format`; plain text needs no format at all. */
function responseFormat(format: TextFormat | null | undefined): ResponseFormat | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  return {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    ...(format.description ? { description: format.description } : {}),
    ...(typeof format.strict === "boolean" ? { strict: format.strict } : {}),
  };
}

/**
 * A Responses API request → IR, plus the context to answer it. `include`, `truncation` and
 * other unknown fields are accepted and ignored. `store` is echoed: the token routes keep the
 * response when it is not false (the x402 route sets it false: nothing is kept for a payment).
 * @throws GatewayError bad_request for a malformed request or a feature that needs stored state.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export function parseResponsesRequest(body: unknown): ParsedResponsesRequest {
  const request = parseRequestBody(responsesRequestSchema, body);
  rejectStatefulFeatures(request);
  const { system, messages } = parseInput(request.instructions, request.input);
  const tools = parseTools(request.tools, request.tool_choice);
  const hasTools = tools.tools.length > 0;
  const format = responseFormat(request.text?.format);
  const ir: ChatRequest = {
    model: request.model,
    system,
    messages,
    tools: tools.tools,
    toolChoice: tools.toolChoice,
    parallelToolCalls: hasTools ? (request.parallel_tool_calls ?? undefined) : undefined,
    maxTokens: request.max_output_tokens ?? undefined,
    temperature: request.temperature ?? undefined,
    topP: request.top_p ?? undefined,
    stopSequences: [],
    stream: request.stream === true,
    user: request.user ?? undefined,
    ...(format ? { responseFormat: format } : {}),
    ...optional("reasoning", reasoningFromEffort(request.reasoning?.effort)),
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
    store: request.store !== false,
    previous_response_id: request.previous_response_id ?? null,
  };
  return { request: ir, context: { echo, targets: tools.targets } };
}
