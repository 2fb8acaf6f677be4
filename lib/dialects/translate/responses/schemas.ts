import { z } from "zod";

/**
 * The Responses API request fields the gateway reads. Objects are loose: any field not
 * named here is accepted and ignored (`include`, `truncation`, `prompt_cache_key`, …), so a
 * client such as Codex that sends the newest fields is never refused for them.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */

const inputText = z.looseObject({ type: z.enum(["input_text", "output_text"]), text: z.string() });
const inputImage = z.looseObject({
  type: z.literal("input_image"),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.string().nullish(),
});
const refusal = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });
/** Accepted by the schema so the translator can refuse them with a precise message. */
const unsupportedPart = z.looseObject({ type: z.enum(["input_file", "input_audio"]) });

const contentPartSchema = z.discriminatedUnion("type", [inputText, inputImage, refusal, unsupportedPart]);
export type ContentPart = z.infer<typeof contentPartSchema>;

const content = z.union([z.string(), z.array(contentPartSchema)]);

const messageItem = z.looseObject({
  type: z.literal("message"),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content,
});

const functionCallItem = z.looseObject({
  type: z.literal("function_call"),
  call_id: z.string(),
  name: z.string(),
  namespace: z.string().nullish(),
  arguments: z.string(),
});

const toolOutput = z.union([z.string(), z.array(contentPartSchema)]);

const functionCallOutputItem = z.looseObject({
  type: z.literal("function_call_output"),
  call_id: z.string(),
  output: toolOutput,
});

const customToolCallItem = z.looseObject({
  type: z.literal("custom_tool_call"),
  call_id: z.string(),
  name: z.string(),
  input: z.string(),
});

const customToolCallOutputItem = z.looseObject({
  type: z.literal("custom_tool_call_output"),
  call_id: z.string(),
  output: toolOutput,
});

/**
 * History items the gateway drops: reasoning it cannot replay (often encrypted for OpenAI
 * only) and the calls and results of hosted tools, which are never offered upstream. Their
 * effect is already in the assistant messages that followed them.
 */
const droppedItemTypes = [
  "reasoning",
  "compaction",
  "compaction_trigger",
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "tool_search_call",
  "tool_search_output",
  "additional_tools",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "mcp_call",
  "program",
  "program_output",
] as const;

const droppedItem = z.looseObject({ type: z.enum(droppedItemTypes) });

/** A pointer to a stored item: refused, because the gateway stores nothing. */
const itemReference = z.looseObject({ type: z.literal("item_reference") });

/** An "easy" message (`{role, content}`) has no `type`; it is a message all the same. */
function defaultToMessage(value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Array.isArray(value) && !("type" in value)) {
    return { ...value, type: "message" };
  }
  return value;
}

const inputItemSchema = z.preprocess(
  defaultToMessage,
  z.discriminatedUnion("type", [
    messageItem,
    functionCallItem,
    functionCallOutputItem,
    customToolCallItem,
    customToolCallOutputItem,
    droppedItem,
    itemReference,
  ]),
);
export type InputItem = z.infer<typeof inputItemSchema>;

const functionTool = z.looseObject({
  type: z.literal("function"),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
export type FunctionTool = z.infer<typeof functionTool>;

const customTool = z.looseObject({
  type: z.literal("custom"),
  name: z.string().min(1),
  description: z.string().nullish(),
  format: z
    .looseObject({ type: z.string(), syntax: z.string().nullish(), definition: z.string().nullish() })
    .nullish(),
});
export type CustomTool = z.infer<typeof customTool>;

const namespaceTool = z.looseObject({
  type: z.literal("namespace"),
  name: z.string().min(1),
  description: z.string().nullish(),
  tools: z.array(z.union([functionTool, customTool])),
});

const mappedToolTypes = new Set(["function", "custom", "namespace"]);

/**
 * Every other tool type is hosted by OpenAI (web_search, file_search, …) and is dropped.
 * Relabelling them first keeps the union discriminated, so a malformed function tool gets
 * its own precise error instead of passing as an unknown hosted tool.
 */
function labelHostedTool(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("type" in value)) return value;
  const type = value.type;
  return typeof type === "string" && !mappedToolTypes.has(type)
    ? { type: "hosted", hostedType: type }
    : value;
}

const hostedTool = z.object({ type: z.literal("hosted"), hostedType: z.string() });

const toolSchema = z.preprocess(
  labelHostedTool,
  z.discriminatedUnion("type", [functionTool, customTool, namespaceTool, hostedTool]),
);
export type Tool = z.infer<typeof toolSchema>;

const toolChoiceSchema = z.union([
  z.enum(["auto", "none", "required"]),
  z.looseObject({ type: z.enum(["function", "custom"]), name: z.string() }),
  z.looseObject({ type: z.literal("allowed_tools"), mode: z.enum(["auto", "required"]) }),
  // A hosted tool (`{type: "web_search"}`, …): it is dropped, so the choice falls back to auto.
  z.looseObject({
    type: z.string().refine((type) => !["function", "custom", "allowed_tools"].includes(type)),
  }),
]);
export type ToolChoice = z.infer<typeof toolChoiceSchema>;

const textFormat = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    name: z.string(),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);
export type TextFormat = z.infer<typeof textFormat>;

export const responsesRequestSchema = z.looseObject({
  model: z.string().trim().min(1, "model is required"),
  input: z.union([z.string(), z.array(inputItemSchema)]),
  instructions: z.string().nullish(),
  tools: z.array(toolSchema).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stream: z.boolean().nullish(),
  text: z.looseObject({ format: textFormat.nullish() }).nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  store: z.boolean().nullish(),
  conversation: z.unknown().optional(),
  background: z.boolean().nullish(),
  prompt: z.unknown().optional(),
});
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
