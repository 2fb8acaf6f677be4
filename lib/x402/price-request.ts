import type { Dialect } from "../dialects/dialect";
import { GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import type { Candidate } from "../providers/candidate";
import {
  holdPrice,
  type PreparedInference,
  prepareInference,
  worstCaseOf as worstCaseOfPrepared,
} from "../proxy/prepare-inference";
import type { RoutingServices } from "../routing/routing-state";
import { requestBodyHash } from "./core/body-hash";
import type { QuoteRequest } from "./core/issue-quote";
import { x402BadRequest, x402Messages } from "./core/x402-errors";

/** One x402 request, prepared like a prepaid one and bound to its bytes. */
export interface PricedRequest extends PreparedInference {
  method: string;
  path: string;
  bodyHash: string;
}

/**
 * Reads and checks the request the way the prepaid proxy does (one shared preparation),
 * plus the x402 rule that an output limit is mandatory (the quote is a ceiling, so it needs one).
 */
export async function priceRequest(
  app: RoutingServices,
  request: ApiRequest,
  dialect: Dialect,
): Promise<PricedRequest> {
  const prepared = await prepareInference(app, request, dialect).catch((error: unknown) => {
    // The reference service's answer for a model nobody serves, before any quote or payment.
    if (error instanceof GatewayError && error.type === "model_not_found")
      throw new GatewayError(
        "no_provider",
        error.message.replace("model not found", "no healthy provider for model"),
      );
    throw error;
  });
  if (prepared.inference.maxTokens === undefined) throw x402BadRequest(x402Messages.maxTokensRequired);
  const path = new URL(request.url).pathname;
  return {
    ...prepared,
    method: request.method.toUpperCase(),
    path,
    bodyHash: requestBodyHash(request.method, path, prepared.rawBody),
  };
}

/**
 * What a quote for this request binds and caps: the worst case over every candidate (estimated
 * prompt at the dearest input rate plus the output limit at the dearest output rate), under the
 * caller's ceilings, mode and pins, so any failover stays inside the cap. A request nobody can
 * route gets its routing error instead of a quote.
 */
export function quoteRequestOf(priced: PricedRequest): QuoteRequest {
  if (priced.routing.type === "unroutable") throw priced.routing.error;
  return {
    method: priced.method,
    path: priced.path,
    bodyHash: priced.bodyHash,
    model: priced.model.id,
    worstCaseMicrounits: worstCaseOfPrepared(
      priced,
      holdPrice(priced.routing.candidates),
      priced.maxOutputTokens,
    ),
  };
}

/**
 * The candidates a paid request may use: those whose worst case fits the quoted cap. The
 * routing headers are not part of the request hash, so a retry could otherwise point a
 * cheap quote at a dear source; filtering keeps every charge inside what was paid.
 */
export function candidatesWithinCap(priced: PricedRequest, capMicrounits: bigint): Candidate[] {
  if (priced.routing.type !== "routed") return [];
  return priced.routing.candidates.filter(
    (candidate) => worstCaseOfPrepared(priced, candidate.price, priced.maxOutputTokens) <= capMicrounits,
  );
}

/**
 * Why a paid request cannot be served within its cap, or undefined when it can: the routing
 * error (no provider, no provider at the caller's ceilings) or every source now dearer.
 */
export function unservableReason(priced: PricedRequest, capMicrounits: bigint): GatewayError | undefined {
  if (priced.routing.type === "unroutable") return priced.routing.error;
  if (candidatesWithinCap(priced, capMicrounits).length > 0) return undefined;
  return new GatewayError(
    "no_provider_at_price",
    "No provider can serve this request within its quoted cap any more; request a new quote.",
  );
}
