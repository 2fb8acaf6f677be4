import { readOpenaiChatUsage } from "./openai-chat-usage";
import {
  type ContentSink,
  type FrameVerdict,
  frameErrorMessage,
  type Json,
  list,
  parseFrame,
  type ReplyReader,
  record,
  type StreamReadState,
} from "./reply-reader";
import { claimOf } from "./usage-claim";

/** What a chat message or delta carries to the caller: text, reasoning, refusal, tool calls. */
function addMessage(
  message: Json | undefined,
  sink: ContentSink,
  countsCall: (call: Json | undefined) => boolean,
): void {
  if (!message) return;
  sink.add(message.content);
  sink.add(message.reasoning_content);
  sink.add(message.reasoning);
  sink.add(message.refusal);
  for (const call of list(message.tool_calls)) {
    const fn = record(record(call)?.function);
    if (countsCall(record(call))) sink.toolCalls += 1;
    sink.add(fn?.name);
    sink.add(fn?.arguments);
  }
}

/** A whole message counts every call; a stream counts a call once, on the delta that opens it (with its id). */
const everyCall = () => true;
const openingCall = (call: Json | undefined) => typeof call?.id === "string";

/** OpenAI chat completions: `usage` on the body, or on the usage-only chunk the gateway asks for. */
export const openaiChatReply: ReplyReader = {
  claimFromBody: (body) => claimOf(readOpenaiChatUsage(record(body)?.usage)),

  contentFromBody(body, sink) {
    for (const choice of list(record(body)?.choices))
      addMessage(record(record(choice)?.message), sink, everyCall);
  },

  readFrame({ event, data }, state: StreamReadState, sink): FrameVerdict {
    if (data.trim() === "[DONE]") {
      state.sawTerminal = true;
      return { injectedUsageChunk: false };
    }
    const chunk = parseFrame(data);
    if (!chunk) return { injectedUsageChunk: false };
    if (event === "error" || chunk.error !== undefined) state.upstreamError = frameErrorMessage(chunk.error);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) addMessage(record(record(choice)?.delta), sink, openingCall);
    if (chunk.usage === undefined || chunk.usage === null) return { injectedUsageChunk: false };
    // A bad figure in any chunk makes the whole claim one the meter will not take.
    if (state.claim.type !== "invalid") state.claim = claimOf(readOpenaiChatUsage(chunk.usage));
    return { injectedUsageChunk: choices.length === 0 };
  },
};
