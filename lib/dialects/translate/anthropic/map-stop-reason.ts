import { assertNever, type FinishReason } from "../ir";

/**
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 * `model_context_window_exceeded` is a length stop for the caller's purposes.
 */
export function parseAnthropicStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "stop_sequence":
      return "stop-sequence";
    case "tool_use":
      return "tool-calls";
    case "refusal":
      return "content-filter";
    case "pause_turn":
      return "pause";
    default:
      return "stop";
  }
}

export type AnthropicStopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal";

/** A content filter stop is Anthropic's `refusal`: both mean the model declined to continue. */
export function renderAnthropicStopReason(reason: FinishReason): AnthropicStopReason {
  switch (reason) {
    case "stop":
      return "end_turn";
    case "stop-sequence":
      return "stop_sequence";
    case "length":
      return "max_tokens";
    case "tool-calls":
      return "tool_use";
    case "content-filter":
      return "refusal";
    case "pause":
      return "pause_turn";
    default:
      return assertNever(reason);
  }
}
