import type { DispatchOptions } from "./candidate";

/**
 * The dev simulator: an in-process, clearly labelled stand-in for an OpenAI-format upstream,
 * so a newcomer can try the whole flow (register, fund, call, stream, billing) offline.
 * Enabled only by POD_SIMULATOR=true; production configuration never sets it.
 */
export const simulatorProviderName = "simulator";

const reply =
  "[simulated] This reply comes from the Pod Gateway dev simulator. Set an upstream API key (for example OPENAI_API_KEY) for real completions.";

function promptTokens(body: Record<string, unknown>): number {
  return Math.max(1, Math.ceil(JSON.stringify(body.messages ?? []).length / 4));
}

function outputWords(body: Record<string, unknown>): string[] {
  const words = reply.split(/(?= )/);
  const limit = Number(body.max_completion_tokens ?? body.max_tokens ?? words.length);
  return words.slice(0, Math.max(1, Math.min(words.length, Number.isFinite(limit) ? limit : words.length)));
}

export function dispatchSimulator(rawBody: string, options: DispatchOptions): Promise<Response> {
  const body = JSON.parse(rawBody) as Record<string, unknown>;
  const model = String(body.model);
  const id = `chatcmpl-sim${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const words = outputWords(body);
  const finish = words.length < reply.split(/(?= )/).length ? "length" : "stop";
  const usage = {
    prompt_tokens: promptTokens(body),
    completion_tokens: words.length,
    total_tokens: promptTokens(body) + words.length,
  };
  const headers = { "x-pod-simulated": "true" };
  if (body.stream !== true) {
    return Promise.resolve(
      Response.json(
        {
          id,
          object: "chat.completion",
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: words.join("") },
              finish_reason: finish,
              logprobs: null,
            },
          ],
          usage,
        },
        { headers },
      ),
    );
  }
  const includeUsage =
    (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const encoder = new TextEncoder();
  const frame = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
    frame({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
  const frames = [
    chunk({ role: "assistant", content: "" }, null),
    ...words.map((word) => chunk({ content: word }, null)),
    chunk({}, finish),
    ...(includeUsage
      ? [frame({ id, object: "chat.completion.chunk", created, model, choices: [], usage })]
      : []),
    encoder.encode("data: [DONE]\n\n"),
  ];
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = frames.shift();
      if (next === undefined || options.signal.aborted) controller.close();
      else controller.enqueue(next);
    },
  });
  return Promise.resolve(
    new Response(stream, { headers: { "content-type": "text/event-stream", ...headers } }),
  );
}
