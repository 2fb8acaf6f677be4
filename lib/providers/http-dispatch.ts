import { Agent, request } from "undici";
import type { Dialect } from "../dialects/dialect";
import { upstreamFormats } from "../dialects/wire-format";
import { PlainHeaders } from "../plain-headers";
import { injectTraceContext } from "../telemetry/tracing";
import type { DispatchOptions } from "./candidate";
import { NodeBodyResponse } from "./node-body-response";

export interface HttpTarget {
  dialect: Dialect;
  /** OpenAI-family bases include the version segment; the Anthropic base does not. */
  baseUrl: string;
  apiKey: string;
}

/**
 * Posts a body to an upstream at the path its format (`lib/dialects/wire-format.ts`) gives the
 * operation, with that format's headers; an operation the format does not serve is refused.
 */
export function dispatchHttp(
  target: HttpTarget,
  body: string | Uint8Array,
  options: DispatchOptions,
): Promise<Response> {
  const operation = options.operation ?? "generate";
  const format = upstreamFormats[target.dialect];
  const path = format.paths[operation];
  if (path === undefined)
    return Promise.reject(new Error(`${formatLabel[target.dialect]} upstream cannot serve ${operation}`));
  const headers = format.headers(target.apiKey, options.forwardHeaders);
  return postUpstream(`${target.baseUrl}${path}`, {
    headers: injectTraceContext(
      options.contentType ? { ...headers, "content-type": options.contentType } : headers,
    ),
    body,
    signal: options.signal,
  });
}

const formatLabel = { openai: "an OpenAI-format", anthropic: "an Anthropic-format" } as const;

/**
 * Upstream calls use undici's dispatcher API, not the global fetch: in the production process
 * Next patches the global fetch (cache and tracing work on every call), and fetch's own
 * spec machinery costs more than the request. Callers still get a web Response.
 */
const upstreamAgent = new Agent({ keepAliveTimeout: 30_000 });

async function postUpstream(
  url: string,
  init: { headers: Record<string, string>; body: string | Uint8Array; signal: AbortSignal | undefined },
): Promise<Response> {
  const upstream = await request(url, {
    method: "POST",
    headers: init.headers,
    body: init.body,
    signal: init.signal,
    dispatcher: upstreamAgent,
  });
  const noBody = upstream.statusCode === 204 || upstream.statusCode === 304;
  if (noBody) {
    upstream.body.resume();
    return new Response(null, { status: upstream.statusCode, headers: new PlainHeaders(upstream.headers) });
  }
  return new NodeBodyResponse(upstream.body, { status: upstream.statusCode, headers: upstream.headers });
}
