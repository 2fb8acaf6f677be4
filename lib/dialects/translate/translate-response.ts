import { parseAnthropicResponse } from "./anthropic/parse-response";
import { renderAnthropicResponse } from "./anthropic/render-response";
import { collectStreamResponse } from "./collect-stream";
import type { CallerDialect, ChatResponse, Dialect } from "./ir";
import { parseOpenaiResponse } from "./openai/parse-response";
import { renderOpenaiResponse } from "./openai/render-response";
import { createResponsesStreamEncoder } from "./responses/encode-stream";
import { parseResponsesRequest } from "./responses/parse-request";
import { renderResponsesResponse } from "./responses/render-response";
import { responseAsEvents } from "./stream-codec";
import { structuredOutputTool, unwrapStructuredResponse } from "./structured-output";
import { callerRequestAsIr } from "./translate-request";

/**
 * The tool an Anthropic upstream was made to answer through when a caller of another format
 * asked for JSON (see ./structured-output.ts), or undefined.
 */
export function structuredCarrierOf(
  from: Dialect,
  to: CallerDialect,
  callerRequest: Record<string, unknown> | undefined,
): string | undefined {
  if (from !== "anthropic" || to === "anthropic" || !callerRequest) return undefined;
  return structuredOutputTool(callerRequestAsIr(to, callerRequest));
}

/** An upstream's non-streamed body as IR, with structured output unwrapped into the answer text. */
export function parseUpstreamResponse(
  from: Dialect,
  body: Record<string, unknown>,
  carrier: string | undefined,
): ChatResponse {
  const response = from === "openai" ? parseOpenaiResponse(body) : parseAnthropicResponse(body);
  return carrier ? unwrapStructuredResponse(response, carrier) : response;
}

/** The caller's request as the Responses codec's context; a programming error if it is missing. */
export function responsesContextOf(callerRequest: Record<string, unknown> | undefined) {
  if (!callerRequest) throw new Error("a Responses answer needs the caller's request");
  return parseResponsesRequest(callerRequest).context;
}

/**
 * Non-streaming upstream response of dialect `from` → response in dialect `to`, reporting
 * `model`. Same dialect keeps the body (and its unknown fields), only the model changes.
 * `callerRequest` is needed by the Responses API, which echoes the request (instructions, tools, …).
 * @throws GatewayError upstream_error when the upstream body is not a valid response.
 */
export function translateResponse(
  from: Dialect,
  to: CallerDialect,
  body: Record<string, unknown>,
  model: string,
  callerRequest?: Record<string, unknown>,
): Record<string, unknown> {
  if (from === to) return { ...body, model };
  const response = parseUpstreamResponse(from, body, structuredCarrierOf(from, to, callerRequest));
  return renderResponse(to, response, model, callerRequest);
}

/**
 * An upstream that streamed although it was asked for one piece: its events, read by the
 * stream decoders, as the one response in dialect `to` the caller asked for.
 * @throws GatewayError upstream_error when the stream reports an error or is cut short.
 */
export function translateStreamedResponse(
  from: Dialect,
  to: CallerDialect,
  sseText: string,
  model: string,
  callerRequest?: Record<string, unknown>,
): Record<string, unknown> {
  const carrier = structuredCarrierOf(from, to, callerRequest);
  const response = collectStreamResponse(from, sseText);
  return renderResponse(
    to,
    carrier ? unwrapStructuredResponse(response, carrier) : response,
    model,
    callerRequest,
  );
}

function renderResponse(
  to: CallerDialect,
  response: ChatResponse,
  model: string,
  callerRequest: Record<string, unknown> | undefined,
): Record<string, unknown> {
  switch (to) {
    case "openai":
      return renderOpenaiResponse(response, model);
    case "anthropic":
      return renderAnthropicResponse(response, model);
    case "responses":
      return { ...renderResponsesResponse(response, responsesContextOf(callerRequest)) };
  }
}

/**
 * A Responses caller that asked to stream always gets events, even when its source answered
 * in one piece: the whole response → the Responses stream it would have been.
 * @throws GatewayError upstream_error when the upstream body is not a valid response.
 */
export function translateResponseToResponsesStream(
  from: Dialect,
  body: Record<string, unknown>,
  callerRequest: Record<string, unknown>,
): string {
  const encoder = createResponsesStreamEncoder(responsesContextOf(callerRequest));
  const decoder = new TextDecoder();
  return responseAsEvents(
    parseUpstreamResponse(from, body, structuredCarrierOf(from, "responses", callerRequest)),
  )
    .flatMap((event) => encoder.encode(event))
    .map((frame) => decoder.decode(frame))
    .join("");
}
