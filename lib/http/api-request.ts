import type { AbortHandle } from "../light-abort";

/**
 * What the API's handlers read of a request. A web Request has it, so Next's route files pass
 * theirs; server.ts passes a BufferedRequest, which has it without a web Request's construction
 * cost (its own AbortSignal, body stream machinery) on every call.
 */
export type ApiRequest = Pick<
  Request,
  "method" | "url" | "headers" | "signal" | "body" | "text" | "json" | "arrayBuffer"
> & {
  /** The path, when the server already checked the request target (request-target.ts): no URL parse. */
  readonly pathname?: string;
  /** The client's disconnect without a web AbortSignal's cost, when the server has one (BufferedRequest). */
  readonly abortHandle?: AbortHandle;
};

/** What aborts when the request's client goes away: the cheap handle when there is one. */
export function clientAbort(request: ApiRequest): AbortHandle {
  return request.abortHandle ?? request.signal;
}
