import { GatewayError } from "../../errors/gateway-error";
import { createSseDecoder } from "../../sse/sse-decoder";
import { createAnthropicStreamDecoder } from "./anthropic/decode-stream";
import { type ChatResponse, type Dialect, emptyUsage, type ResponsePart, type StreamEvent } from "./ir";
import { createOpenaiStreamDecoder } from "./openai/decode-stream";

/** Appends a delta to the last part when it is of the same kind, else starts a part. */
function appendText(content: ResponsePart[], type: "text" | "reasoning", text: string): void {
  const last = content[content.length - 1];
  if (last?.type === type) last.text += text;
  else content.push({ type, text });
}

/**
 * A whole SSE body (an upstream that streamed although it was asked not to) as the one
 * response it adds up to, read by the same decoders as relayed streams.
 * @throws GatewayError upstream_error when the stream reports an error or stops before its end.
 */
export function collectStreamResponse(from: Dialect, sseText: string): ChatResponse {
  const decoder = from === "openai" ? createOpenaiStreamDecoder() : createAnthropicStreamDecoder();
  const events: StreamEvent[] = [];
  const sse = createSseDecoder({ onEvent: (message) => events.push(...decoder.decode(message)) });
  sse.push(new TextEncoder().encode(sseText));
  sse.end();
  events.push(...decoder.end());
  const content: ResponsePart[] = [];
  const tools = new Map<number, Extract<ResponsePart, { type: "tool-call" }>>();
  for (const event of events) {
    switch (event.type) {
      case "text-delta":
      case "reasoning-delta":
        appendText(content, event.type === "text-delta" ? "text" : "reasoning", event.text);
        break;
      case "tool-call-start": {
        const call = { type: "tool-call" as const, id: event.id, name: event.name, arguments: "" };
        tools.set(event.toolIndex, call);
        content.push(call);
        break;
      }
      case "tool-call-delta": {
        const call = tools.get(event.toolIndex);
        if (call) call.arguments += event.argumentsDelta;
        break;
      }
      case "error":
        throw new GatewayError("upstream_error", `upstream error: ${event.error.message}`);
      case "finish":
        return {
          id: undefined,
          content,
          finishReason: event.reason,
          stopSequence: event.stopSequence,
          usage: event.usage,
          ...(event.reasoningTokens === undefined ? {} : { reasoningTokens: event.reasoningTokens }),
        };
    }
  }
  return { id: undefined, content, finishReason: "stop", stopSequence: undefined, usage: emptyUsage };
}
