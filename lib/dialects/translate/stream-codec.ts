import type { EventSourceMessage } from "eventsource-parser";
import type { ChatResponse, StreamEvent } from "./ir";

/** Turns one dialect's SSE messages into IR events; stateful, one per upstream stream. */
export interface StreamDecoder {
  decode(message: EventSourceMessage): StreamEvent[];
  /** Upstream closed: emit the pending finish, or an error if the stream was cut short. */
  end(): StreamEvent[];
}

/** Turns IR events into one dialect's SSE frames; stateful, one per caller stream. */
export interface StreamEncoder {
  encode(event: StreamEvent): Uint8Array[];
}

export function truncatedStreamError(): StreamEvent {
  return {
    type: "error",
    error: {
      kind: "server",
      message: "upstream stream ended before the response was complete",
      sourceCode: undefined,
    },
  };
}

export function malformedChunkError(): StreamEvent {
  return {
    type: "error",
    error: { kind: "server", message: "upstream sent a malformed stream event", sourceCode: undefined },
  };
}

/**
 * A whole response as the events its stream would have carried, for a caller that asked to
 * stream from a source that answered in one piece.
 */
export function responseAsEvents(response: ChatResponse): StreamEvent[] {
  const events: StreamEvent[] = [];
  let toolIndex = 0;
  for (const part of response.content) {
    if (part.type === "reasoning") events.push({ type: "reasoning-delta", text: part.text });
    else if (part.type === "text") events.push({ type: "text-delta", text: part.text });
    // Stream events carry no images yet: a made image reaches callers of whole replies only.
    else if (part.type === "image") continue;
    else {
      events.push({ type: "tool-call-start", toolIndex, id: part.id, name: part.name });
      events.push({ type: "tool-call-delta", toolIndex, argumentsDelta: part.arguments });
      toolIndex += 1;
    }
  }
  events.push({
    type: "finish",
    reason: response.finishReason,
    stopSequence: response.stopSequence,
    usage: response.usage,
    ...(response.reasoningTokens === undefined ? {} : { reasoningTokens: response.reasoningTokens }),
  });
  return events;
}
