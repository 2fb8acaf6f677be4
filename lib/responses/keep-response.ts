import { BufferedResponse } from "../http/buffered-response";
import { type ChunkSource, StreamedResponse } from "../http/streamed-response";
import { log } from "../log";
import type { Services } from "../services";
import { createSseDecoder } from "../sse/sse-decoder";
import { type ResponseOwner, storeResponse } from "./stored-responses";

const finalEvents = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** The Response object a Responses event stream ended with, if it ended with one. */
function finalResponseOf(events: string[]): unknown {
  for (const data of events.reverse()) {
    try {
      const event: unknown = JSON.parse(data);
      if (typeof event === "object" && event !== null && "type" in event && "response" in event) {
        if (typeof event.type === "string" && finalEvents.has(event.type)) return event.response;
      }
    } catch {
      // Not JSON: not an event this looks for.
    }
  }
  return undefined;
}

function collector() {
  const events: string[] = [];
  const decoder = createSseDecoder((message) => {
    if (message.event && finalEvents.has(message.event)) events.push(message.data);
  });
  return {
    push: (chunk: Uint8Array) => decoder.push(chunk),
    finish: () => {
      decoder.end();
      return finalResponseOf(events);
    },
  };
}

/**
 * Keeps a Responses answer for the token that asked (unless it said `store: false`): a whole
 * JSON answer at once, a stream once its final event has gone to the caller. A failure to
 * store is logged, never turned into a failed answer.
 */
export async function keepResponse(
  app: Services,
  owner: ResponseOwner,
  requestBody: Record<string, unknown>,
  response: Response,
): Promise<Response> {
  if (requestBody.store === false || response.status !== 200) return response;
  const policy = {
    retentionDays: app.env.RESPONSES_RETENTION_DAYS,
    maxBytes: app.env.RESPONSES_MAX_STORED_BYTES,
  };
  const store = async (answer: unknown) => {
    await storeResponse(app.database.db, { owner, requestBody, response: answer }, policy).catch(
      (error: unknown) => log.error("storing a response failed", { error }),
    );
  };
  // A whole answer is stored before it is handed back, so the next turn can name it at once.
  if (response instanceof BufferedResponse) {
    const text = response.bufferedText;
    if (text.startsWith("{")) {
      await store(safeJson(text));
      return response;
    }
    const events = collector();
    events.push(new TextEncoder().encode(text));
    await store(events.finish());
    return response;
  }
  if (!(response instanceof StreamedResponse)) return response;
  const events = collector();
  const source = response.source;
  const tapped: ChunkSource = {
    cancel: () => source.cancel(),
    onCutOff: (listener) => source.onCutOff(listener),
    async *[Symbol.asyncIterator]() {
      for await (const chunk of source) {
        events.push(chunk);
        yield chunk;
      }
      await store(events.finish());
    },
  };
  return new StreamedResponse(tapped, { status: response.status, headers: headersOf(response) });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function headersOf(response: Response): Record<string, string> {
  return Object.fromEntries(response.headers.entries());
}
