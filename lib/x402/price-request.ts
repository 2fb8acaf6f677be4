import type { AppContext } from "../app-context";
import type { CatalogModel } from "../catalog/models";
import type { Dialect } from "../dialects/dialect";
import { GatewayError } from "../errors/gateway-error";
import { parseJsonText, readBodyText } from "../http/read-body";
import { worstCaseCost } from "../pricing/cost";
import { highestPrice } from "../proxy/highest-price";
import {
  estimateInputTokens,
  type InferenceRequest,
  parseInferenceRequest,
} from "../proxy/inference-request";
import type { Candidate } from "../routing/candidate";
import { resolveModel } from "../routing/resolve-model";
import { parseRoutingHeaders, routeRequest } from "../routing/route-request";
import { translatableCandidates } from "../routing/translatable-candidates";
import { requestBodyHash } from "./body-hash";
import { x402BadRequest, x402Messages } from "./x402-errors";

/** One x402 request, validated, bound to its bytes and matched to the sources that can serve it. */
export interface PricedRequest {
  inference: InferenceRequest;
  model: CatalogModel;
  method: string;
  path: string;
  bodyHash: string;
  inputTokens: number;
  maxOutputTokens: number;
  /**
   * The sources in try order, or why there are none. Kept as a value rather than thrown:
   * on the paid path the payment is settled (and credited) first, then the reason is told.
   */
  routing: { type: "routed"; candidates: Candidate[] } | { type: "unroutable"; error: GatewayError };
}

/**
 * Reads and checks the request the way the prepaid proxy does, plus the x402 rule that an
 * output limit is mandatory (the quote is a ceiling, so it needs one).
 */
export async function priceRequest(
  app: AppContext,
  request: Request,
  dialect: Dialect,
): Promise<PricedRequest> {
  const routingRequest = parseRoutingHeaders(request.headers);
  const rawBody = await readBodyText(request, app.env.MAX_BODY_BYTES);
  const inference = parseInferenceRequest(dialect, parseJsonText(rawBody), rawBody);
  if (inference.maxTokens === undefined) throw x402BadRequest(x402Messages.maxTokensRequired);
  const model = resolveModel(app.catalog, inference.model);
  // The reference service's answer for a model nobody serves, before any quote or payment.
  if (!model) throw new GatewayError("no_provider", `no healthy provider for model: ${inference.model}`);
  const path = new URL(request.url).pathname;
  let routing: PricedRequest["routing"];
  try {
    const candidates = translatableCandidates(
      dialect,
      inference.body,
      await routeRequest(app, model, routingRequest),
    );
    routing = { type: "routed", candidates };
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    routing = { type: "unroutable", error };
  }
  return {
    inference,
    model,
    method: request.method.toUpperCase(),
    path,
    bodyHash: requestBodyHash(request.method, path, rawBody),
    inputTokens: estimateInputTokens(inference, model.contextWindow),
    maxOutputTokens: Math.min(inference.maxTokens, model.maxOutputTokens),
    routing,
  };
}

/** The worst case over every candidate: held at the dearest rates, so any failover stays inside the cap. */
export function worstCaseOf(priced: PricedRequest, candidates: Candidate[]): bigint {
  return worstCaseCost(priced.inputTokens, priced.maxOutputTokens, highestPrice(candidates));
}

/**
 * The candidates a paid request may use: those whose worst case fits the quoted cap. The
 * routing headers are not part of the request hash, so a retry could otherwise point a
 * cheap quote at a dear source; filtering keeps every charge inside what was paid.
 */
export function candidatesWithinCap(priced: PricedRequest, capMicrounits: bigint): Candidate[] {
  if (priced.routing.type !== "routed") return [];
  return priced.routing.candidates.filter(
    (candidate) =>
      worstCaseCost(priced.inputTokens, priced.maxOutputTokens, candidate.price) <= capMicrounits,
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
