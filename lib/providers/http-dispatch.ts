import { Agent, request } from "undici";
import type { Dialect } from "../dialects/dialect";
import type { DispatchOptions } from "./candidate";
import { NodeBodyResponse } from "./node-body-response";

export interface HttpTarget {
  dialect: Dialect;
  /** OpenAI-family bases include the version segment; the Anthropic base does not. */
  baseUrl: string;
  apiKey: string;
}

/**
 * Posts a body to an OpenAI- or Anthropic-format upstream with that vendor's auth headers:
 * a chat body for a generation, (Anthropic only) a token-count request, or (OpenAI format
 * only) an embeddings request.
 */
export function dispatchHttp(target: HttpTarget, body: string, options: DispatchOptions): Promise<Response> {
  const operation = options.operation ?? "generate";
  if (target.dialect === "anthropic") {
    if (operation === "embeddings")
      return Promise.reject(new Error("an Anthropic-format upstream cannot serve embeddings"));
    const path = operation === "count_tokens" ? "/v1/messages/count_tokens" : "/v1/messages";
    return postUpstream(`${target.baseUrl}${path}`, {
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
  if (operation === "count_tokens") {
    return Promise.reject(new Error(`an OpenAI-format upstream cannot serve ${operation}`));
  }
  const path = operation === "embeddings" ? "/embeddings" : "/chat/completions";
  return postUpstream(`${target.baseUrl}${path}`, {
    headers: { "content-type": "application/json", authorization: `Bearer ${target.apiKey}` },
    body,
    signal: options.signal,
  });
}

/**
 * Upstream calls use undici's dispatcher API, not the global fetch: in the production process
 * Next patches the global fetch (cache and tracing work on every call), and fetch's own
 * spec machinery costs more than the request. Callers still get a web Response.
 */
const upstreamAgent = new Agent({ keepAliveTimeout: 30_000 });

async function postUpstream(
  url: string,
  init: { headers: Record<string, string>; body: string; signal: AbortSignal | undefined },
): Promise<Response> {
  const upstream = await request(url, {
    method: "POST",
    headers: init.headers,
    body: init.body,
    signal: init.signal,
    dispatcher: upstreamAgent,
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const noBody = upstream.statusCode === 204 || upstream.statusCode === 304;
  if (noBody) {
    upstream.body.resume();
    return new Response(null, { status: upstream.statusCode, headers });
  }
  return new NodeBodyResponse(upstream.body, { status: upstream.statusCode, headers });
}
