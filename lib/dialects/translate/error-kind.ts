/**
 * Vendor-neutral error categories. Both vendors' SDKs pick their error class from the HTTP
 * status, so the kind mostly preserves *meaning* (e.g. billing vs. rate limit on a 429).
 */
export type ErrorKind =
  | "invalid_request"
  | "authentication"
  | "permission"
  | "not_found"
  | "request_too_large"
  | "rate_limit"
  | "billing"
  | "timeout"
  | "overloaded"
  | "server";

export interface ErrorInfo {
  kind: ErrorKind;
  message: string;
  /** The source vendor's own type or code, kept so nothing is lost in translation. */
  sourceCode: string | undefined;
}

/** Fallback when the vendor's type is unknown or absent (status 0: in-stream, no status). */
export function errorKindFromStatus(status: number): ErrorKind {
  switch (status) {
    case 400:
    case 422:
      return "invalid_request";
    case 401:
      return "authentication";
    case 402:
      return "billing";
    case 403:
      return "permission";
    case 404:
      return "not_found";
    case 408:
    case 504:
      return "timeout";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit";
    case 503:
    case 529:
      return "overloaded";
    default:
      return status >= 400 && status < 500 ? "invalid_request" : "server";
  }
}

/** Non-JSON upstream bodies (HTML error pages, proxies) are not echoed to callers. */
export function genericUpstreamMessage(status: number): string {
  return status > 0 ? `upstream request failed with status ${status}` : "upstream stream failed";
}

/** An error body that is not its vendor's envelope: the status decides the kind, the message is generic. */
export function unreadableError(status: number): ErrorInfo {
  return {
    kind: errorKindFromStatus(status),
    message: genericUpstreamMessage(status),
    sourceCode: undefined,
  };
}
