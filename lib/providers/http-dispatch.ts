import type { Dialect } from "../dialects/dialect";
import type { DispatchOptions } from "../routing/candidate";

export interface HttpTarget {
  dialect: Dialect;
  /** OpenAI-family bases include the version segment; the Anthropic base does not. */
  baseUrl: string;
  apiKey: string;
}

/**
 * Posts a body to an OpenAI- or Anthropic-format upstream with that vendor's auth headers:
 * a chat body for a generation, or (Anthropic only) a token-count request.
 */
export function dispatchHttp(target: HttpTarget, body: string, options: DispatchOptions): Promise<Response> {
  const operation = options.operation ?? "generate";
  if (target.dialect === "anthropic") {
    const path = operation === "count_tokens" ? "/v1/messages/count_tokens" : "/v1/messages";
    return fetch(`${target.baseUrl}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": target.apiKey,
        "anthropic-version": options.forwardHeaders["anthropic-version"] ?? "2023-06-01",
        ...(options.forwardHeaders["anthropic-beta"]
          ? { "anthropic-beta": options.forwardHeaders["anthropic-beta"] }
          : {}),
      },
      body,
      signal: options.signal,
    });
  }
  if (operation !== "generate") {
    return Promise.reject(new Error(`an OpenAI-format upstream cannot serve ${operation}`));
  }
  return fetch(`${target.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${target.apiKey}` },
    body,
    signal: options.signal,
  });
}
