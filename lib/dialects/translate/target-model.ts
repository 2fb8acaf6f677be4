/** What the upstream model can do, from the catalog: decides how some fields are translated. */
export interface TargetModel {
  /** Takes a reasoning setting (OpenAI `reasoning_effort`, Anthropic `thinking`). */
  reasoning: boolean;
  /** Has native structured output (Anthropic `output_config.format`, OpenAI `json_schema`). */
  structuredOutput: boolean;
}

/** When the catalog says nothing: reasoning is passed on, structured output goes by a forced tool. */
export const unknownTargetModel: TargetModel = { reasoning: true, structuredOutput: false };
