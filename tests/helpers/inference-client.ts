import type { TestGateway } from "./gateway";

export interface InferenceCall {
  model?: string;
  content?: string;
  stream?: boolean;
  maxTokens?: number;
  headers?: Record<string, string>;
}

/** Raw HTTP calls to the token proxy, so tests see exact statuses, headers and bodies. */
export function inferenceClient(gateway: Pick<TestGateway, "baseUrl">, token: string) {
  const post = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${gateway.baseUrl}/proxy/${token}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  return {
    chat: (call: InferenceCall = {}) =>
      post(
        "/v1/chat/completions",
        {
          model: call.model ?? "gpt-4o-mini",
          max_tokens: call.maxTokens ?? 20,
          ...(call.stream ? { stream: true } : {}),
          messages: [{ role: "user", content: call.content ?? "hi [fake:tokens=3]" }],
        },
        call.headers,
      ),
    messages: (call: InferenceCall = {}) =>
      post(
        "/v1/messages",
        {
          model: call.model ?? "gpt-4o-mini",
          max_tokens: call.maxTokens ?? 20,
          ...(call.stream ? { stream: true } : {}),
          messages: [{ role: "user", content: call.content ?? "hi [fake:tokens=3]" }],
        },
        { "anthropic-version": "2023-06-01", ...call.headers },
      ),
  };
}

/** What a request costs at a price, rounded up like the gateway's billing. */
export function expectedCost(
  usage: { input: number; output: number },
  price: { input: number; output: number },
): bigint {
  return BigInt(Math.ceil((usage.input * price.input + usage.output * price.output) / 1_000_000));
}

/** The content pieces a Chat Completions stream carried, in order, from its raw SSE text (a cut last frame is left out). */
export function streamedPieces(sse: string): string[] {
  const pieces: string[] = [];
  for (const [, data] of sse.matchAll(/^data: (\{.*\})$/gm)) {
    try {
      const chunk = JSON.parse(data ?? "") as { choices?: { delta?: { content?: unknown } }[] };
      const content = chunk.choices?.[0]?.delta?.content;
      if (typeof content === "string" && content !== "") pieces.push(content);
    } catch {
      // a frame the crash cut in half
    }
  }
  return pieces;
}
