import type { ErrorInfo } from "./error-kind";

/**
 * The intermediate representation (IR) both dialect codecs speak. Each codec only
 * knows its own wire format and this file, so adding a direction never needs N×M code.
 * Field names are deliberately neither OpenAI's nor Anthropic's.
 */

/** The wire formats upstreams speak (and callers too). */
export type Dialect = "openai" | "anthropic";

/** What a caller may speak: the upstream formats plus OpenAI's Responses API, which no upstream is asked for. */
export type CallerDialect = Dialect | "responses";

export type ImageSource = { type: "base64"; mediaType: string; data: string } | { type: "url"; url: string };

export interface TextPart {
  type: "text";
  text: string;
}

export interface ImagePart {
  type: "image";
  source: ImageSource;
  /** OpenAI's resolution hint; other formats have none. */
  detail?: "auto" | "low" | "high";
}

export interface ToolCallPart {
  type: "tool-call";
  id: string;
  name: string;
  /** JSON text of the arguments, exactly as produced (OpenAI sends text, Anthropic an object). */
  arguments: string;
}

interface ToolResultPart {
  type: "tool-result";
  toolCallId: string;
  content: Array<TextPart | ImagePart>;
  isError: boolean;
}

/** The model's own reasoning text (`reasoning_content` of DeepSeek, vLLM; `reasoning` of OpenRouter). */
interface ReasoningPart {
  type: "reasoning";
  text: string;
}

export type UserPart = TextPart | ImagePart | ToolResultPart;
export type AssistantPart = TextPart | ToolCallPart;
/**
 * What a response may hold: reasoning is answered but never sent back as history; images a
 * model made (OpenRouter's `message.images`) are passed on to the caller, never sent back.
 */
export type ResponsePart = AssistantPart | ReasoningPart | ImagePart;

export type Message = { role: "user"; content: UserPart[] } | { role: "assistant"; content: AssistantPart[] };

export interface ToolDefinition {
  name: string;
  description: string | undefined;
  /** JSON Schema of the input object. */
  parameters: Record<string, unknown>;
  /** OpenAI's strict schema adherence, only when the caller set it (many servers do not know it). */
  strict?: boolean;
}

/**
 * Structured output the caller asked for: OpenAI `response_format`, Responses `text.format`,
 * Anthropic `output_config.format` (or the older `output_format`).
 */
export type ResponseFormat =
  | { type: "json_object" }
  | {
      type: "json_schema";
      name: string;
      schema: Record<string, unknown>;
      description?: string;
      strict?: boolean;
    };

/** How hard the model should think: OpenAI's `reasoning_effort`, Anthropic's `thinking` budget. */
export type Reasoning = { effort: "low" | "medium" | "high" } | { budgetTokens: number };

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
  responseFormat?: ResponseFormat;
  /** Undefined: the model's default (no thinking for Claude, the model's own for OpenAI). */
  reasoning?: Reasoning;
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
  content: ResponsePart[];
  finishReason: FinishReason;
  /** The matched stop sequence when Anthropic reports one. */
  stopSequence: string | undefined;
  usage: Usage;
  /** How much of the output was reasoning, where the upstream says (OpenAI's reasoning_tokens). */
  reasoningTokens?: number;
}

/**
 * Canonical stream events (noun-verb, as in vercel/ai's stream parts). Decoders guarantee:
 * `tool-call-start` precedes that call's deltas, `toolIndex` counts tool calls from 0 in
 * the order they started, and exactly one of `finish`/`error` ends the stream.
 */
export type StreamEvent =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-call-start"; toolIndex: number; id: string; name: string }
  | { type: "tool-call-delta"; toolIndex: number; argumentsDelta: string }
  | {
      type: "finish";
      reason: FinishReason;
      stopSequence: string | undefined;
      usage: Usage;
      reasoningTokens?: number;
    }
  | { type: "error"; error: ErrorInfo };

/** Exhaustiveness guard for switches over the unions above. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
