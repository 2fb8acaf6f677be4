import { assertNever, type FinishReason } from "../ir";
import type { ResponseObject } from "./wire-types";

interface FinishOutcome {
  status: "completed" | "incomplete";
  incompleteDetails: ResponseObject["incomplete_details"];
}

/**
 * IR finish reason → Response status. Only a cut-off answer is incomplete: the output limit
 * and the content filter; a stop, a stop sequence, tool calls and a pause are complete turns.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-incomplete_details
 */
export function renderResponsesOutcome(reason: FinishReason): FinishOutcome {
  switch (reason) {
    case "length":
      return { status: "incomplete", incompleteDetails: { reason: "max_output_tokens" } };
    case "content-filter":
      return { status: "incomplete", incompleteDetails: { reason: "content_filter" } };
    case "stop":
    case "stop-sequence":
    case "tool-calls":
    case "pause":
      return { status: "completed", incompleteDetails: null };
    default:
      return assertNever(reason);
  }
}
