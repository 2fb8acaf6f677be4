/**
 * Browser clients (dashboards, x402 wallets in a page) call the API cross-origin. The API
 * holds no cookies, so any origin may call it; the headers a client needs are exposed.
 */
const exposedHeaders = [
  "PAYMENT-REQUIRED",
  "PAYMENT-RESPONSE",
  "x-balance-remaining",
  "x-pod-cost-microunits",
  "x-pod-route",
  "x-pod-provider-id",
  "x-pod-receipt",
  "x-request-id",
  "request-id",
  "x-should-retry",
  "retry-after",
].join(", ");

import type { ApiRequest } from "./api-request";

/** What every API response carries (the pipeline adds them). */
export const corsHeaders: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": exposedHeaders,
};

/** Allowed when the preflight names no headers; a browser normally lists the ones it will send. */
const defaultAllowedHeaders = [
  "content-type",
  "authorization",
  "x-api-key",
  "anthropic-version",
  "anthropic-beta",
  "payment-signature",
  "x-payment",
  "access-control-expose-headers",
  "x-pod-max-price-input",
  "x-pod-max-price-output",
  "x-pod-max-price-request",
  "x-pod-routing-mode",
  "x-pod-providers",
].join(", ");

export function preflightResponse(request: ApiRequest): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": "*",
      "access-control-expose-headers": exposedHeaders,
      "access-control-allow-methods": "GET, POST, PUT, DELETE, OPTIONS",
      // A wildcard would not cover Authorization, so the requested headers are echoed.
      "access-control-allow-headers":
        request.headers.get("access-control-request-headers") ?? defaultAllowedHeaders,
      "access-control-max-age": "86400",
    },
  });
}
