import type { ChatRequest, ChatResponse, StreamEvent } from "./ir";
import type { StreamDecoder } from "./stream-codec";

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The tool that carries structured output to an Anthropic model when the caller asked for
 * JSON (`response_format`, `text.format`) and offered no tools of its own: the model is made
 * to call it, and its input is the answer. Undefined when the request is sent with
 * `output_config.format` instead (the caller's own tools or thinking are in play) or asks no JSON.
 */
export function structuredOutputTool(request: ChatRequest): string | undefined {
  const format = request.responseFormat;
  if (!format || request.tools.length > 0 || request.reasoning) return undefined;
  return format.type === "json_schema" && toolNamePattern.test(format.name) ? format.name : "json_response";
}

/** The carrier tool's call becomes the answer text, in the caller's shape (content, not a tool call). */
export function unwrapStructuredResponse(response: ChatResponse, toolName: string): ChatResponse {
  let unwrapped = false;
  const content = response.content.map((part) => {
    if (part.type !== "tool-call" || part.name !== toolName) return part;
    unwrapped = true;
    return { type: "text" as const, text: part.arguments };
  });
  if (!unwrapped) return response;
  return {
    ...response,
    content,
    finishReason: response.finishReason === "tool-calls" ? "stop" : response.finishReason,
  };
}

/** The same for a stream: the carrier call's argument deltas become text deltas. */
export function unwrapStructuredStream(decoder: StreamDecoder, toolName: string): StreamDecoder {
  let carrier: number | undefined;
  const map = (events: StreamEvent[]): StreamEvent[] =>
    events.flatMap((event): StreamEvent[] => {
      if (event.type === "tool-call-start" && event.name === toolName) {
        carrier = event.toolIndex;
        return [];
      }
      if (event.type === "tool-call-delta" && event.toolIndex === carrier)
        return [{ type: "text-delta", text: event.argumentsDelta }];
      if (event.type === "finish" && carrier !== undefined && event.reason === "tool-calls")
        return [{ ...event, reason: "stop" }];
      return [event];
    });
  return {
    decode: (message) => map(decoder.decode(message)),
    end: () => map(decoder.end()),
  };
}
