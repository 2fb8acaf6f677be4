import type { EventSourceMessage } from "eventsource-parser";
import type { StreamEvent } from "./ir";

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
