import type { BackendRequest } from "./backends/backend";

/** The output-limit fields of each wire format, as a job's request may carry them. */
const limitFields: Record<BackendRequest["format"], readonly string[]> = {
  openai: ["max_completion_tokens", "max_tokens"],
  anthropic: ["max_tokens"],
};

/**
 * A prompt's tokens, estimated high from its size: a third of the request's UTF-8 bytes. A
 * token of English or code is three to four bytes, a CJK character three bytes and about one
 * token, and the JSON around the text adds bytes that are no tokens at all. The agent does not
 * tokenize (the gateway counts what is billed); this only keeps the limit inside the context.
 */
function estimatedPromptTokens(body: Record<string, unknown>): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 3);
}

/**
 * The request with its output limit lowered to fit the model's context window, as the backend
 * reported it: a server such as vLLM refuses a request whose prompt plus output limit exceed
 * its context, and the gateway sends the catalog's output limit (up to 32,768) when the caller
 * set none. Lowering only ever shortens the answer the gateway already held funds for; without a
 * reported window, or with a limit that fits, the request goes unchanged.
 */
export function fitOutputLimit(
  request: BackendRequest,
  contextWindow: number | undefined,
): { request: BackendRequest; lowered?: { from: number; to: number } } {
  if (contextWindow === undefined) return { request };
  const room = Math.max(1, contextWindow - estimatedPromptTokens(request.body));
  for (const field of limitFields[request.format]) {
    const value = request.body[field];
    if (typeof value !== "number" || value <= room) continue;
    return {
      request: { ...request, body: { ...request.body, [field]: room } },
      lowered: { from: value, to: room },
    };
  }
  return { request };
}
