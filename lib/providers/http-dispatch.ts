import type { Dialect } from "../dialects/dialect";
import type { DispatchOptions } from "../routing/candidate";

export interface HttpTarget {
  dialect: Dialect;
  /** OpenAI-family bases include the version segment; the Anthropic base does not. */
  baseUrl: string;
  apiKey: string;
}

/** Posts a chat body to an OpenAI- or Anthropic-format upstream with that vendor's auth headers. */
export function dispatchHttp(target: HttpTarget, body: string, options: DispatchOptions): Promise<Response> {
  if (target.dialect === "anthropic") {
    return fetch(`${target.baseUrl}/v1/messages`, {
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
  return fetch(`${target.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${target.apiKey}` },
    body,
    signal: options.signal,
  });
}
