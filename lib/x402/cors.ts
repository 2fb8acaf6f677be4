import { corsHeaders, preflightResponse } from "../http/cors";

/**
 * x402 is meant for browsers and agents alike: a cross-origin caller must be able to send
 * PAYMENT-SIGNATURE and read PAYMENT-REQUIRED / PAYMENT-RESPONSE, which browsers hide
 * unless they are exposed. The x402 handlers set the API's CORS headers themselves so the
 * app/ route files (which bypass server.ts) answer the same.
 */
export const x402CorsHeaders: Readonly<Record<string, string>> = corsHeaders;

/** The answer to a CORS preflight on an x402 path (route files; server.ts answers all preflights). */
export function x402PreflightResponse(request: Request): Response {
  return preflightResponse(request);
}
