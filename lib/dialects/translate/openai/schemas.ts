import { z } from "zod";

/**
 * OpenAI Chat Completions wire shapes: only the fields the translator reads. Request
 * schemas reject what we cannot translate; response schemas are lenient (`nullish`).
 * @see https://platform.openai.com/docs/api-reference/chat
 */

const textPart = z.object({ type: z.literal("text"), text: z.string() });
const imageUrlPart = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: z.string(), detail: z.string().nullish() }),
});
const refusalPart = z.object({ type: z.literal("refusal"), refusal: z.string() });

const textContent = z.union([z.string(), z.array(textPart)]);

const toolCall = z.object({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const openaiMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.enum(["system", "developer"]), content: textContent }),
  z.object({
    role: z.literal("user"),
    content: z.union([z.string(), z.array(z.discriminatedUnion("type", [textPart, imageUrlPart]))]),
  }),
  z.object({
    role: z.literal("assistant"),
    content: z.union([z.string(), z.array(z.discriminatedUnion("type", [textPart, refusalPart]))]).nullish(),
    refusal: z.string().nullish(),
    tool_calls: z.array(toolCall).nullish(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: textContent }),
]);
export type OpenaiMessage = z.infer<typeof openaiMessageSchema>;

const openaiToolChoiceSchema = z.union([
  z.enum(["auto", "none", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) }),
  z.object({
    type: z.literal("allowed_tools"),
    allowed_tools: z.object({
      mode: z.enum(["auto", "required"]),
      tools: z.array(z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) })),
    }),
  }),
]);

const responseFormatSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({
      name: z.string(),
      schema: z.record(z.string(), z.unknown()).nullish(),
      description: z.string().nullish(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

export const openaiRequestSchema = z.object({
  model: z.string().optional(),
  messages: z.array(openaiMessageSchema).min(1),
  tools: z
    .array(
      z.object({
        type: z.literal("function"),
        function: z.object({
          name: z.string(),
          description: z.string().nullish(),
          parameters: z.record(z.string(), z.unknown()).nullish(),
          strict: z.boolean().nullish(),
        }),
      }),
    )
    .nullish(),
  tool_choice: openaiToolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stream: z.boolean().nullish(),
  // Anthropic returns exactly one candidate, so n > 1 cannot be honoured.
  n: z.literal(1, { error: "only n = 1 is supported for this model" }).nullish(),
  user: z.string().nullish(),
  response_format: responseFormatSchema.nullish(),
  reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).nullish(),
});
export type OpenaiRequest = z.infer<typeof openaiRequestSchema>;

/**
 * Not OpenAI's own fields: the model's reasoning as OpenAI-compatible servers send it,
 * `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter).
 */
const reasoningFields = {
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
};

export const openaiResponseSchema = z.object({
  id: z.string().nullish(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          ...reasoningFields,
          tool_calls: z.array(toolCall).nullish(),
          /** Images the model made, as OpenRouter returns them. */
          images: z
            .array(z.object({ type: z.literal("image_url"), image_url: z.object({ url: z.string() }) }))
            .max(64)
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  /** Read by lib/dialects/usage/openai-chat-usage.ts, which bounds every figure. */
  usage: z.unknown().optional(),
});

export const openaiChunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            ...reasoningFields,
            tool_calls: z
              .array(
                z.object({
                  index: z.number().nullish(),
                  id: z.string().nullish(),
                  function: z
                    .object({ name: z.string().nullish(), arguments: z.string().nullish() })
                    .nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  /** Read by lib/dialects/usage/openai-chat-usage.ts, which bounds every figure. */
  usage: z.unknown().optional(),
});
export type OpenaiChunk = z.infer<typeof openaiChunkSchema>;

export const openaiErrorSchema = z.object({
  error: z.object({
    message: z.string().nullish(),
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
    param: z.string().nullish(),
  }),
});
