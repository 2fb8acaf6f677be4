/**
 * The Responses API objects the gateway emits: only the shapes it produces, typed so the
 * translators cannot drift from what the official SDK accumulates.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */

export type ItemStatus = "in_progress" | "completed" | "incomplete";

interface OutputTextPart {
  type: "output_text";
  text: string;
  annotations: never[];
}

interface ReasoningTextPart {
  type: "reasoning_text";
  text: string;
}

export interface MessageItem {
  type: "message";
  id: string;
  role: "assistant";
  status: ItemStatus;
  content: OutputTextPart[];
}

export interface FunctionCallItem {
  type: "function_call";
  id: string;
  call_id: string;
  name: string;
  /** Set when the tool came from a `namespace` tool; `name` is then the inner name. */
  namespace?: string;
  arguments: string;
  status: ItemStatus;
}

/** A freeform (`custom`) tool call: `input` is the raw text, not JSON arguments. */
export interface CustomToolCallItem {
  type: "custom_tool_call";
  id: string;
  call_id: string;
  name: string;
  input: string;
}

/**
 * Chat-completions reasoning (`reasoning_content`) is the model's raw reasoning, which the
 * Responses API carries as `reasoning_text` content; there is no summary to offer.
 */
export interface ReasoningItem {
  type: "reasoning";
  id: string;
  summary: never[];
  content: ReasoningTextPart[];
  status: ItemStatus;
}

/** An image the model made, as OpenAI's Responses API returns one: base64 in `result`. */
interface ImageGenerationItem {
  type: "image_generation_call";
  id: string;
  status: "completed";
  result: string;
}

export type OutputItem =
  | MessageItem
  | FunctionCallItem
  | CustomToolCallItem
  | ReasoningItem
  | ImageGenerationItem;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

/**
 * The request fields a Response object repeats back. `tools` lists only the tools the model
 * was actually offered, so a caller can see that hosted tools were dropped.
 */
export interface ResponseEcho {
  model: string;
  instructions: string | null;
  tools: Record<string, unknown>[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  text: { format: Record<string, unknown> };
  reasoning: { effort: string | null; summary: string | null };
  metadata: Record<string, string>;
  user: string | null;
  store: boolean;
  previous_response_id: string | null;
}

export interface ResponseObject extends ResponseEcho {
  id: string;
  object: "response";
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  output: OutputItem[];
  background: false;
  truncation: "disabled";
  usage: ResponsesUsage | null;
}
