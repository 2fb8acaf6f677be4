import type { Reasoning } from "./ir";

/**
 * OpenAI's effort names (chat `reasoning_effort`, Responses `reasoning.effort`) as IR:
 * `none` and `minimal` ask for no reasoning, which is a model without thinking.
 */
export function reasoningFromEffort(effort: string | null | undefined): Reasoning | undefined {
  if (effort === "low" || effort === "medium" || effort === "high") return { effort };
  if (effort === "xhigh") return { effort: "high" };
  return undefined;
}
