import { z } from "zod";

/**
 * Anthropic Messages wire shapes: only the fields the translator reads. Request schemas
 * reject what an OpenAI upstream cannot do (server tools, documents); response and
 * stream schemas are lenient so new block types are skipped, not fatal.
 * @see https://docs.anthropic.com/en/api/messages
 */

const textBlock = z.object({ type: z.literal("text"), text: z.string() });
const imageBlock = z.object({
  type: z.literal("image"),
  source: z.discriminatedUnion("type", [
    z.object({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
    z.object({ type: z.literal("url"), url: z.string() }),
  ]),
});
const toolUseBlock = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
const toolResultBlock = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [textBlock, imageBlock]))]).nullish(),
  is_error: z.boolean().nullish(),
});
// Thinking blocks are accepted (clients echo them back) and dropped on translation.
const thinkingBlock = z.object({ type: z.enum(["thinking", "redacted_thinking"]) });

const anthropicMessageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([
    z.string(),
    z.array(
      z.discriminatedUnion("type", [textBlock, imageBlock, toolUseBlock, toolResultBlock, thinkingBlock]),
    ),
  ]),
});
export type AnthropicMessage = z.infer<typeof anthropicMessageSchema>;
export type AnthropicBlock = Exclude<AnthropicMessage["content"], string>[number];

const jsonOutputFormat = z.object({
  type: z.literal("json_schema"),
  schema: z.record(z.string(), z.unknown()),
});

export const anthropicRequestSchema = z.object({
  model: z.string().optional(),
  messages: z.array(anthropicMessageSchema).min(1),
  system: z.union([z.string(), z.array(textBlock)]).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  tools: z
    .array(
      z.object({
        // Server tools (web_search_…, bash_…) carry a dated type and no input_schema; they fail here.
        type: z.literal("custom", { error: "server tools are not supported for this model" }).nullish(),
        name: z.string(),
        description: z.string().nullish(),
        input_schema: z.record(z.string(), z.unknown()),
      }),
    )
    .nullish(),
  tool_choice: z
    .object({
      type: z.enum(["auto", "any", "tool", "none"]),
      name: z.string().nullish(),
      disable_parallel_tool_use: z.boolean().nullish(),
    })
    .nullish(),
  metadata: z.object({ user_id: z.string().nullish() }).nullish(),
  thinking: z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("enabled"), budget_tokens: z.number().int().positive() }),
      z.object({ type: z.enum(["disabled", "adaptive"]) }),
    ])
    .nullish(),
  output_config: z
    .object({
      format: jsonOutputFormat.nullish(),
      effort: z.enum(["low", "medium", "high", "max"]).nullish(),
    })
    .nullish(),
  /** The structured-outputs beta's name for output_config.format. */
  output_format: jsonOutputFormat.nullish(),
});
export type AnthropicRequest = z.infer<typeof anthropicRequestSchema>;

/** Any content block; unknown types (server_tool_use, thinking, …) keep only `type`. */
/** Usage objects are read by lib/dialects/usage/anthropic-messages-usage.ts, which bounds every figure. */
const responseBlock = z.object({
  type: z.string(),
  text: z.string().nullish(),
  id: z.string().nullish(),
  name: z.string().nullish(),
  input: z.unknown().optional(),
});

export const anthropicResponseSchema = z.object({
  id: z.string().nullish(),
  content: z.array(responseBlock),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: z.unknown().optional(),
});

export const anthropicStreamEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("message_start"),
    message: z.object({ usage: z.unknown().optional() }),
  }),
  z.object({ type: z.literal("content_block_start"), index: z.number(), content_block: responseBlock }),
  z.object({
    type: z.literal("content_block_delta"),
    index: z.number(),
    delta: z.object({ type: z.string(), text: z.string().nullish(), partial_json: z.string().nullish() }),
  }),
  z.object({ type: z.literal("content_block_stop"), index: z.number() }),
  z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
    usage: z.unknown().optional(),
  }),
  z.object({ type: z.literal("message_stop") }),
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("error"), error: z.object({ type: z.string(), message: z.string() }) }),
]);
export type AnthropicStreamEvent = z.infer<typeof anthropicStreamEventSchema>;

export const anthropicErrorSchema = z.object({
  type: z.literal("error").optional(),
  error: z.object({ type: z.string().nullish(), message: z.string().nullish() }),
});
