import type { GatewayErrorKind } from "@pod-gateway/contracts/gateway-errors";

/**
 * The one error hierarchy of the gateway. Every failure a caller can see is a
 * GatewayError with a closed `type`; the dialect renderers turn it into the envelope
 * the official SDKs understand, so the status alone picks the SDK's error class.
 */

export const errorStatus = {
  bad_request: 400,
  unauthorized: 401,
  insufficient_balance: 402,
  key_limit_reached: 402,
  payment_required: 402,
  no_provider_at_price: 402,
  forbidden: 403,
  not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  upstream_error: 502,
  no_provider: 503,
  service_unavailable: 503,
  upstream_timeout: 504,
} as const satisfies Record<GatewayErrorKind, number>;

/**
 * The same kinds in Anthropic's own `error.type` vocabulary, so the Anthropic SDK and tools
 * built on it (Claude Code retries `overloaded_error`, shows `billing_error`) recognise them.
 * The gateway's precise kind travels beside it as `error.code`.
 * @see https://docs.anthropic.com/en/api/errors
 */
export const anthropicErrorType = {
  bad_request: "invalid_request_error",
  unauthorized: "authentication_error",
  insufficient_balance: "billing_error",
  key_limit_reached: "billing_error",
  payment_required: "billing_error",
  no_provider_at_price: "billing_error",
  forbidden: "permission_error",
  not_found: "not_found_error",
  model_not_found: "not_found_error",
  method_not_allowed: "invalid_request_error",
  conflict: "conflict_error",
  payload_too_large: "request_too_large",
  rate_limited: "rate_limit_error",
  internal_error: "api_error",
  upstream_error: "api_error",
  no_provider: "overloaded_error",
  service_unavailable: "api_error",
  upstream_timeout: "timeout_error",
} as const satisfies Record<GatewayErrorKind, string>;

/** A kind of the closed vocabulary (`@pod-gateway/contracts/gateway-errors`). */
export type ErrorType = GatewayErrorKind;

export interface GatewayErrorOptions {
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  param?: string;
  cause?: unknown;
  /** Status override for upstream passthrough (e.g. an upstream 429 stays 429). */
  status?: number;
}

export class GatewayError extends Error {
  override readonly name = "GatewayError";
  readonly type: ErrorType;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;
  readonly param: string | undefined;

  constructor(type: ErrorType, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.type = type;
    this.status = options.status ?? errorStatus[type];
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.param = options.param;
  }
}

export const badRequest = (message: string, options?: GatewayErrorOptions) =>
  new GatewayError(
    "bad_request",
    message.startsWith("bad request") ? message : `bad request: ${message}`,
    options,
  );

/** Normalises anything thrown into a GatewayError; unknown errors become a generic 500. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError("internal_error", "internal error", { cause: error });
}
