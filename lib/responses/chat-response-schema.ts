import { z } from "zod";

/**
 * The Chat Completions answers the translator reads, leniently (`nullish` everywhere): the
 * body comes from whichever upstream served the request. `reasoning_content` is DeepSeek's
 * and vLLM's name for the model's reasoning, `reasoning` OpenRouter's.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */

export const chatUsageSchema = z.object({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type ChatUsage = z.infer<typeof chatUsageSchema>;

const toolCall = z.object({
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const chatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          reasoning_content: z.string().nullish(),
          reasoning: z.string().nullish(),
          tool_calls: z.array(toolCall).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: chatUsageSchema.nullish(),
});
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

export const chatChunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            tool_calls: z.array(toolCall.extend({ index: z.number().nullish() })).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: chatUsageSchema.nullish(),
});
export type ChatChunk = z.infer<typeof chatChunkSchema>;
