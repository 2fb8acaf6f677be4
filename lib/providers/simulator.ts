import {
  chatChunkFrames,
  chatCompletionBody,
  chatUsage,
  wantsStreamUsage,
} from "@pod-gateway/contracts/chat-completion-wire";
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
  const stamp = {
    id: `chatcmpl-sim${Date.now().toString(36)}`,
    created: Math.floor(Date.now() / 1000),
    model: String(body.model),
  };
  const words = outputWords(body);
  const finish = words.length < reply.split(/(?= )/).length ? "length" : "stop";
  const usage = chatUsage(promptTokens(body), words.length);
  const headers = { "x-pod-simulated": "true" };
  if (body.stream !== true) {
    return Promise.resolve(
      Response.json(chatCompletionBody(stamp, words.join(""), finish, usage), { headers }),
    );
  }
  const chunks = chatChunkFrames(stamp);
  const frames = [
    chunks.delta({ role: "assistant", content: "" }, null),
    ...words.map((word) => chunks.delta({ content: word }, null)),
    chunks.delta({}, finish),
    ...(wantsStreamUsage(body) ? [chunks.usage(usage)] : []),
    chunks.done(),
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
