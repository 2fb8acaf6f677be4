import type { ErrorInfo } from "./error-kind";

/**
 * The intermediate representation (IR) both dialect codecs speak. Each codec only
 * knows its own wire format and this file, so adding a direction never needs N×M code.
 * Field names are deliberately neither OpenAI's nor Anthropic's.
 */

export type Dialect = "openai" | "anthropic";

export type ImageSource = { type: "base64"; mediaType: string; data: string } | { type: "url"; url: string };

export interface TextPart {
  type: "text";
  text: string;
}

export interface ImagePart {
  type: "image";
  source: ImageSource;
}

export interface ToolCallPart {
  type: "tool-call";
  id: string;
  name: string;
  /** JSON text of the arguments, exactly as produced (OpenAI sends text, Anthropic an object). */
  arguments: string;
}

export interface ToolResultPart {
  type: "tool-result";
  toolCallId: string;
  content: Array<TextPart | ImagePart>;
  isError: boolean;
}

export type UserPart = TextPart | ImagePart | ToolResultPart;
export type AssistantPart = TextPart | ToolCallPart;

export type Message = { role: "user"; content: UserPart[] } | { role: "assistant"; content: AssistantPart[] };

export interface ToolDefinition {
  name: string;
  description: string | undefined;
  /** JSON Schema of the input object. */
  parameters: Record<string, unknown>;
}

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string };

export interface ChatRequest {
  model: string;
  /** System prompt blocks in order; OpenAI system/developer messages are hoisted here. */
  system: TextPart[];
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice | undefined;
  /** False when the caller asked for at most one tool call per turn. */
  parallelToolCalls: boolean | undefined;
  maxTokens: number | undefined;
  temperature: number | undefined;
  topP: number | undefined;
  stopSequences: string[];
  stream: boolean;
  user: string | undefined;
}

/**
 * Why generation stopped. `stop-sequence` is kept apart from `stop` because Anthropic
 * reports it separately; `pause` is Anthropic's server-tool `pause_turn`.
 */
export type FinishReason = "stop" | "stop-sequence" | "length" | "tool-calls" | "content-filter" | "pause";

/**
 * Token usage with the cache split made explicit: the same shape billing uses. `inputTokens`
 * EXCLUDES cached and cache-written tokens (Anthropic's convention); OpenAI's prompt_tokens is
 * the sum of all three.
 */
import type { Usage } from "../../pricing/cost";

export { emptyUsage, type Usage } from "../../pricing/cost";

export interface ChatResponse {
  id: string | undefined;
  content: AssistantPart[];
  finishReason: FinishReason;
  /** The matched stop sequence when Anthropic reports one. */
  stopSequence: string | undefined;
  usage: Usage;
}

/**
 * Canonical stream events (noun-verb, as in vercel/ai's stream parts). Decoders guarantee:
 * `tool-call-start` precedes that call's deltas, `toolIndex` counts tool calls from 0 in
 * the order they started, and exactly one of `finish`/`error` ends the stream.
 */
export type StreamEvent =
  | { type: "text-delta"; text: string }
  | { type: "tool-call-start"; toolIndex: number; id: string; name: string }
  | { type: "tool-call-delta"; toolIndex: number; argumentsDelta: string }
  | { type: "finish"; reason: FinishReason; stopSequence: string | undefined; usage: Usage }
  | { type: "error"; error: ErrorInfo };

/** Exhaustiveness guard for switches over the unions above. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
