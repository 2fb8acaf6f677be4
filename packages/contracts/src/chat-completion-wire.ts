/**
 * The OpenAI chat completion wire format, as the gateway's own upstreams write it: the dev
 * simulator (lib/providers) and the agent's GGUF engine. Both answer what the gateway then
 * reads, meters and bills as an OpenAI upstream, so they write it one way.
 */

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Which completion a body or chunk belongs to. */
export interface CompletionStamp {
  id: string;
  created: number;
  model: string;
}

export const chatUsage = (promptTokens: number, completionTokens: number): ChatUsage => ({
  prompt_tokens: promptTokens,
  completion_tokens: completionTokens,
  total_tokens: promptTokens + completionTokens,
});

/** Whether a streamed request asked for the usage chunk before `[DONE]`. */
export const wantsStreamUsage = (body: Record<string, unknown>): boolean =>
  (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;

/** A whole (unstreamed) completion with one choice. */
export function chatCompletionBody(
  stamp: CompletionStamp,
  content: string,
  finishReason: string,
  usage: ChatUsage,
) {
  return {
    id: stamp.id,
    object: "chat.completion",
    created: stamp.created,
    model: stamp.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, refusal: null },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage,
  };
}

/**
 * The SSE frames of a streamed completion, sent in this order: `delta` for the opening role,
 * each piece of text and the finish; `usage` when asked for; `done` last.
 */
export function chatChunkFrames(stamp: CompletionStamp) {
  const encoder = new TextEncoder();
  const frame = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = { id: stamp.id, object: "chat.completion.chunk", created: stamp.created, model: stamp.model };
  return {
    delta: (delta: Record<string, unknown>, finishReason: string | null) =>
      frame({ ...chunk, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] }),
    usage: (usage: ChatUsage) => frame({ ...chunk, choices: [], usage }),
    done: () => encoder.encode("data: [DONE]\n\n"),
  };
}
