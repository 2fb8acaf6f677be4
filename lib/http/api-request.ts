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
};
