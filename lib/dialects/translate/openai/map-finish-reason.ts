import { assertNever, type FinishReason } from "../ir";

/**
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 * `function_call` is the legacy name of `tool_calls`; unknown values mean a normal stop.
 */
export function parseOpenaiFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "content_filter":
      return "content-filter";
    default:
      return "stop";
  }
}

/** OpenAI has no separate stop-sequence or pause reason; both are a plain `stop` to its clients. */
export function renderOpenaiFinishReason(
  reason: FinishReason,
): "stop" | "length" | "tool_calls" | "content_filter" {
  switch (reason) {
    case "stop":
    case "stop-sequence":
    case "pause":
      return "stop";
    case "length":
      return "length";
    case "tool-calls":
      return "tool_calls";
    case "content-filter":
      return "content_filter";
    default:
      return assertNever(reason);
  }
}
