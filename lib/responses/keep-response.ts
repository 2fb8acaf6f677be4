import { BufferedResponse } from "../http/buffered-response";
import { type ChunkSource, StreamedResponse } from "../http/streamed-response";
import type { Services } from "../services";
import { createSseDecoder } from "../sse/sse-decoder";
import type { ResponseStoreServices } from "./pending-stores";
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
 * JSON answer, or a stream once its final event has gone to the caller, is written right after
 * the answer leaves (PendingResponseStores): a lookup of it here waits for that write, and one on
 * another replica looks again briefly. A failure to store is logged and counted, never turned
 * into a failed answer; a crash between the answer and its write loses the stored response.
 */
export async function keepResponse(
  app: Services & ResponseStoreServices,
  owner: ResponseOwner,
  requestBody: Record<string, unknown>,
  response: Response,
): Promise<Response> {
  if (requestBody.store === false || response.status !== 200) return response;
  const policy = {
    retentionDays: app.env.RESPONSES_RETENTION_DAYS,
    maxBytes: app.env.RESPONSES_MAX_STORED_BYTES,
  };
  // The answer is read for its id after it has gone out: its parse is not on the answer's path.
  const store = (answerOf: () => unknown): Promise<void> =>
    app.pendingResponses.behind(() => {
      const answer = answerOf();
      const id = storedIdOf(answer);
      if (id === undefined) return undefined;
      return {
        id,
        write: () => storeResponse(app.database.db, { owner, requestBody, response: answer }, policy),
      };
    });
  if (response instanceof BufferedResponse) {
    const text = response.bufferedText;
    await store(() => {
      if (text.startsWith("{")) return safeJson(text);
      const events = collector();
      events.push(new TextEncoder().encode(text));
      return events.finish();
    });
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
      await store(() => events.finish());
    },
  };
  return new StreamedResponse(tapped, { status: response.status, headers: headersOf(response) });
}

/** The id of an answer storeResponse would keep (`store` on, an id), or undefined. */
function storedIdOf(answer: unknown): string | undefined {
  if (typeof answer !== "object" || answer === null || !("id" in answer) || !("store" in answer))
    return undefined;
  return answer.store === true && typeof answer.id === "string" ? answer.id : undefined;
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
