import type { UsageClaim } from "./usage-claim";

/** Where a reader puts the generated text it finds (the meter's RelayedContent). */
export interface ContentSink {
  add(text: unknown): void;
  /** Tool calls started: each costs a few tokens of framing beyond its name and arguments. */
  toolCalls: number;
}

/** What a stream has said so far, which each frame a reader reads updates. */
export interface StreamReadState {
  claim: UsageClaim;
  sawTerminal: boolean;
  upstreamError: string | undefined;
}

export interface FrameVerdict {
  /** The frame is the usage-only chunk the gateway asked for on the caller's behalf. */
  injectedUsageChunk: boolean;
}

/**
 * How one upstream format's replies are read for billing: the usage a reply claims (through
 * the same bounded readers translation uses) and the content it carries to the caller, from a
 * whole body or frame by frame. One per format, on its record (`upstreamFormats`).
 */
export interface ReplyReader {
  /** The usage a complete non-streamed body claims. */
  claimFromBody(body: unknown): UsageClaim;
  /** The generated content of a non-streamed body, as the caller receives it. */
  contentFromBody(body: unknown, sink: ContentSink): void;
  /** One stream frame: its content into `sink`, its usage, terminal event or in-band error into `state`. */
  readFrame(
    frame: { event?: string | undefined; data: string },
    state: StreamReadState,
    sink: ContentSink,
  ): FrameVerdict;
}

export type Json = Record<string, unknown>;

export function record(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function parseFrame(data: string): Json | undefined {
  try {
    return record(JSON.parse(data));
  } catch {
    return undefined;
  }
}

export function frameErrorMessage(error: unknown): string {
  const message = record(error)?.message;
  return typeof message === "string" ? message.slice(0, 500) : "upstream error";
}
