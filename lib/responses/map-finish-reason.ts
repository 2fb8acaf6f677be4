import type { ResponseObject } from "./wire-types";

export interface FinishOutcome {
  status: "completed" | "incomplete";
  incompleteDetails: ResponseObject["incomplete_details"];
}

/**
 * Chat `finish_reason` → Response status. Only a cut-off answer is incomplete: `length`
 * (the output limit) and `content_filter`; `stop` and `tool_calls` are both complete turns.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-incomplete_details
 */
export function mapFinishReason(reason: string | null | undefined): FinishOutcome {
  if (reason === "length")
    return { status: "incomplete", incompleteDetails: { reason: "max_output_tokens" } };
  if (reason === "content_filter") {
    return { status: "incomplete", incompleteDetails: { reason: "content_filter" } };
  }
  return { status: "completed", incompleteDetails: null };
}
