import { emptyUsage } from "../../pricing/cost";
import {
  mergeAnthropicUsage,
  readAnthropicUsage,
  readAnthropicUsageFields,
} from "./anthropic-messages-usage";
import {
  frameErrorMessage,
  list,
  parseFrame,
  type ReplyReader,
  record,
  type StreamReadState,
} from "./reply-reader";

/** message_start's usage (a placeholder output count) or message_delta's (`final`: the count). */
function readStreamUsage(state: StreamReadState, raw: unknown, final: boolean): void {
  if (state.claim.type === "invalid") return;
  const reading = readAnthropicUsageFields(raw);
  if (reading.type === "absent") return;
  if (reading.type === "invalid") {
    state.claim = reading;
    return;
  }
  const previous = state.claim.type === "read" ? state.claim : undefined;
  state.claim = {
    type: "read",
    usage: mergeAnthropicUsage(previous?.usage ?? emptyUsage, reading.value),
    reasoningTokens: undefined,
    // message_start's output count is a placeholder; message_delta's is the count.
    outputReported:
      (previous?.outputReported ?? false) || (final && reading.value.outputTokens !== undefined),
  };
}

/** Anthropic Messages: `usage` on the body, or spread over message_start and message_delta. */
export const anthropicMessagesReply: ReplyReader = {
  claimFromBody(body) {
    const reading = readAnthropicUsage(record(body)?.usage);
    return reading.type === "read"
      ? { type: "read", usage: reading.value, reasoningTokens: undefined, outputReported: true }
      : reading;
  },

  contentFromBody(body, sink) {
    for (const block of list(record(body)?.content)) {
      const part = record(block);
      sink.add(part?.text);
      sink.add(part?.thinking);
      if (part?.type === "tool_use") {
        sink.toolCalls += 1;
        sink.add(part.name);
        sink.add(JSON.stringify(part.input ?? {}));
      }
    }
  },

  readFrame({ event, data }, state, sink) {
    const payload = parseFrame(data);
    const type = event ?? (typeof payload?.type === "string" ? payload.type : undefined);
    switch (type) {
      case "content_block_start": {
        const block = record(payload?.content_block);
        if (block?.type === "tool_use") {
          sink.toolCalls += 1;
          sink.add(block.name);
        }
        sink.add(block?.text);
        sink.add(block?.thinking);
        break;
      }
      case "content_block_delta": {
        const delta = record(payload?.delta);
        sink.add(delta?.text);
        sink.add(delta?.partial_json);
        sink.add(delta?.thinking);
        break;
      }
      case "message_start":
        readStreamUsage(state, record(payload?.message)?.usage, false);
        break;
      case "message_delta":
        readStreamUsage(state, payload?.usage, true);
        break;
      case "message_stop":
        state.sawTerminal = true;
        break;
      case "error":
        state.upstreamError = frameErrorMessage(payload?.error);
        break;
    }
    return { injectedUsageChunk: false };
  },
};
