/**
 * x402 is meant for browsers and agents alike: a cross-origin caller must be able to send
 * PAYMENT-SIGNATURE and read PAYMENT-REQUIRED / PAYMENT-RESPONSE, which browsers hide
 * unless they are exposed. `@x402/fetch` also sends `Access-Control-Expose-Headers` as a
 * request header, so the preflight allows it.
 */
export const x402CorsHeaders: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers":
    "PAYMENT-REQUIRED, PAYMENT-RESPONSE, x-request-id, request-id, x-pod-route, x-pod-provider-id, x-balance-remaining",
};

const allowedRequestHeaders = [
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
  "x-pod-routing-mode",
  "x-pod-providers",
];

/** The answer to a CORS preflight on an x402 path. */
export function x402PreflightResponse(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...x402CorsHeaders,
      "access-control-allow-methods": "POST, OPTIONS",
      "access-control-allow-headers": allowedRequestHeaders.join(", "),
      "access-control-max-age": "86400",
    },
  });
}
