import type { Dialect } from "../dialects/dialect";
import type { UsageClaim } from "../dialects/usage/usage-claim";
import { upstreamFormats } from "../dialects/wire-format";
import { createSseDecoder } from "../sse/sse-decoder";
import { RelayedContent } from "./relayed-content";
import { StreamUsageTap } from "./stream-usage-tap";

/** The usage a complete non-streamed body claims, read by its format's reader. */
export function claimFromBody(dialect: Dialect, body: unknown): UsageClaim {
  return upstreamFormats[dialect].reply.claimFromBody(body);
}

/** The generated content of a non-streamed body, as the caller receives it. */
export function contentFromBody(dialect: Dialect, body: unknown): RelayedContent {
  const content = new RelayedContent();
  upstreamFormats[dialect].reply.contentFromBody(body, content);
  return content;
}

/** A body that is not JSON: its text is what the caller got, so it is what is counted. */
export function rawContent(text: string): RelayedContent {
  const content = new RelayedContent();
  content.add(text);
  return content;
}

/** The content type or the first bytes say the body is an event stream. */
export function isEventStream(contentType: string, text: string): boolean {
  if (contentType.includes("text/event-stream")) return true;
  const start = text.trimStart().slice(0, 6);
  return start.startsWith("data:") || start.startsWith("event:");
}

/** A whole event-stream body through the same tap as a relayed stream. */
export function tapWholeStream(dialect: Dialect, text: string): StreamUsageTap {
  const tap = new StreamUsageTap(dialect);
  const decoder = createSseDecoder({ onEvent: (message) => tap.inspect(message) });
  decoder.push(new TextEncoder().encode(text));
  decoder.end();
  return tap;
}
