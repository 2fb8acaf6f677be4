import { parseUpstreamBody } from "../dialects/translate/parse-body";
import { encodeSseFrame } from "../dialects/translate/sse";
import { chatCompletionSchema } from "./chat-response-schema";

/**
 * A whole chat.completion as the chunk stream it would have been: one delta carrying
 * everything, the finish reason, the usage, `[DONE]`. Used when a caller asked to stream
 * but the source answered in one piece, so one stream translator serves both cases.
 */
export function completionAsChunks(body: unknown): ReadableStream<Uint8Array> {
  const completion = parseUpstreamBody(chatCompletionSchema, body);
  const [choice] = completion.choices;
  const message = choice?.message;
  const chunk = {
    object: "chat.completion.chunk",
    choices: [
      {
        index: 0,
        delta: {
          ...(message?.reasoning_content ? { reasoning_content: message.reasoning_content } : {}),
          ...(message?.reasoning ? { reasoning: message.reasoning } : {}),
          ...(message?.content ? { content: message.content } : {}),
          ...(message?.refusal ? { refusal: message.refusal } : {}),
          ...(message?.tool_calls?.length
            ? { tool_calls: message.tool_calls.map((call, index) => ({ ...call, index })) }
            : {}),
        },
        finish_reason: choice?.finish_reason ?? "stop",
      },
    ],
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
  const frames = [encodeSseFrame({ data: JSON.stringify(chunk) }), encodeSseFrame({ data: "[DONE]" })];
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(frame);
      controller.close();
    },
  });
}
