import { Agent, type Dispatcher } from "undici";
import type { Dialect } from "../dialects/dialect";
import { upstreamFormats } from "../dialects/wire-format";
import type { AbortHandle } from "../light-abort";
import { PlainHeaders } from "../plain-headers";
import { injectTraceContext } from "../telemetry/tracing";
import type { DispatchOptions } from "./candidate";
import { NodeBodyResponse } from "./node-body-response";
import { UpstreamBody } from "./upstream-body";

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
 * spec machinery costs more than the request. `request()` is skipped too: it parses the URL,
 * wraps the call in an async resource and hands the body over as a node stream, each a cost
 * per request; the handler below gives undici's chunks straight to an UpstreamBody.
 * Callers still get a web Response.
 */
const upstreamAgent = new Agent({ keepAliveTimeout: 30_000 });

function postUpstream(
  url: string,
  init: { headers: Record<string, string>; body: string | Uint8Array; signal: AbortHandle | undefined },
): Promise<Response> {
  const { origin, path } = splitUrl(url);
  return new Promise((resolve, reject) => {
    upstreamAgent.dispatch(
      { origin, path, method: "POST", headers: init.headers, body: init.body },
      new UpstreamCall(resolve, reject, init.signal),
    );
  });
}

/** Origin and path of each upstream URL seen, so a request does not parse its URL again. */
const splitUrls = new Map<string, { origin: string; path: string }>();
const splitUrlsBound = 1024;

function splitUrl(url: string): { origin: string; path: string } {
  let split = splitUrls.get(url);
  if (!split) {
    const parsed = new URL(url);
    split = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    // Relay base URLs come from users: past the bound the cache starts over rather than grow.
    if (splitUrls.size >= splitUrlsBound) splitUrls.clear();
    splitUrls.set(url, split);
  }
  return split;
}

/**
 * One upstream call on undici's handler interface: the answer resolves at its headers, its
 * body goes on into an UpstreamBody. The caller's signal aborts the call before or after them.
 */
class UpstreamCall implements Dispatcher.DispatchHandler {
  readonly #resolve: (response: Response) => void;
  readonly #reject: (error: Error) => void;
  readonly #signal: AbortHandle | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #body: UpstreamBody | undefined;

  constructor(
    resolve: (response: Response) => void,
    reject: (error: Error) => void,
    signal: AbortHandle | undefined,
  ) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    signal?.addEventListener("abort", this.#onAbort);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#signal?.aborted) controller.abort(abortReason(this.#signal));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode === 204 || statusCode === 304) {
      this.#resolve(new Response(null, { status: statusCode, headers: new PlainHeaders(headers) }));
      return;
    }
    this.#body = new UpstreamBody(controller);
    this.#resolve(new NodeBodyResponse(this.#body, { status: statusCode, headers }));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#body?.push(chunk);
  }

  onResponseEnd(): void {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    if (this.#body) this.#body.fail(error);
    else this.#reject(error);
  }

  readonly #onAbort = (): void => {
    if (this.#signal) this.#controller?.abort(abortReason(this.#signal));
  };
}

function abortReason(signal: AbortHandle): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("the upstream request was aborted");
}
