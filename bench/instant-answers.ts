// The answer every instant source in bench/ gives (the upstream, the agent, the in-process load):
// one short OpenAI-format completion and the stream it adds up to, the same bytes for each.

/** A whole chat completion, as an OpenAI upstream returns it. */
export const instantCompletion = {
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_735_689_600,
  model: "gpt-4o-mini",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Hello there" },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
};

/** One SSE frame of a streamed completion carrying `delta`. */
export const instantChunk = (delta: string, finish: string | null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: delta }, finish_reason: finish }] })}\n\n`;
