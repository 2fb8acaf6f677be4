import { badRequest } from "../../errors/gateway-error";
import type { Dialect } from "./ir";

/**
 * What translation does with each top-level field a caller may send: `translate` (carried
 * over), `ignore` (no effect on the answer: storage, caching and billing hints), or a test
 * that says when a value is harmless (a neutral penalty, `logprobs: false`). Any other field,
 * or a value that fails its test, is refused with a 400 naming it: a field is never dropped.
 */
type FieldRule = "translate" | "ignore" | ((value: unknown) => boolean);

const isNeutral = (value: unknown) => value === null || value === undefined || value === 0;
const isOff = (value: unknown) => value === null || value === undefined || value === false;
const isOne = (value: unknown) => value === null || value === undefined || value === 1;
const isTextOnly = (value: unknown) =>
  value === null || value === undefined || (Array.isArray(value) && value.every((item) => item === "text"));

const openaiChatFields: Record<string, FieldRule> = {
  model: "translate",
  messages: "translate",
  tools: "translate",
  tool_choice: "translate",
  parallel_tool_calls: "translate",
  max_tokens: "translate",
  max_completion_tokens: "translate",
  temperature: "translate",
  top_p: "translate",
  stop: "translate",
  stream: "translate",
  stream_options: "translate",
  user: "translate",
  response_format: "translate",
  reasoning_effort: "translate",
  n: isOne,
  store: "ignore",
  metadata: "ignore",
  service_tier: "ignore",
  prompt_cache_key: "ignore",
  prompt_cache_retention: "ignore",
  safety_identifier: "ignore",
  logprobs: isOff,
  top_logprobs: isNeutral,
  frequency_penalty: isNeutral,
  presence_penalty: isNeutral,
  modalities: isTextOnly,
};

const anthropicFields: Record<string, FieldRule> = {
  model: "translate",
  messages: "translate",
  system: "translate",
  max_tokens: "translate",
  temperature: "translate",
  top_p: "translate",
  stop_sequences: "translate",
  stream: "translate",
  tools: "translate",
  tool_choice: "translate",
  metadata: "translate",
  thinking: "translate",
  output_config: "translate",
  output_format: "translate",
  service_tier: "ignore",
  cache_control: "ignore",
};

const otherFormat: Record<Dialect, string> = {
  openai: "an Anthropic-format model",
  anthropic: "an OpenAI-format model",
};

/**
 * Refuses a caller body (OpenAI chat or Anthropic messages, going to the other format) that
 * holds a field the other format cannot express.
 * @throws GatewayError bad_request naming the first such field.
 */
export function refuseUntranslatableFields(from: Dialect, body: Record<string, unknown>): void {
  const rules = from === "openai" ? openaiChatFields : anthropicFields;
  for (const [field, value] of Object.entries(body)) {
    const rule = rules[field];
    if (rule === "translate" || rule === "ignore") continue;
    if (rule?.(value)) continue;
    throw badRequest(
      `${field} cannot be translated for this model: it is served by ${otherFormat[from]}, which has no equivalent. Remove ${field} or choose a model served in your API's format`,
      { param: field },
    );
  }
}
