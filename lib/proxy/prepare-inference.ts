import type { CatalogModel } from "../catalog/models";
import { resolveModelOrThrow } from "../catalog/unknown-model";
import type { CallerDialect } from "../dialects/dialect";
import {
  estimateInputTokens,
  type InferenceRequest,
  parseInferenceRequest,
} from "../dialects/inference-request";
import { callerFormats } from "../dialects/wire-format";
import { badRequest, GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { parseJsonText, readBodyText } from "../http/read-body";
import { type TokenPrice, worstCaseCost } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";
import { parseRoutingHeaders, routeRequest } from "../routing/route-request";
import type { RoutingServices } from "../routing/routing-state";
import { translatableCandidates } from "../routing/translatable-candidates";
import { inSpan } from "../telemetry/tracing";
import { highestPrice } from "./highest-price";

/**
 * One inference call read, validated, resolved and routed, with the numbers its hold is
 * sized from. Shared by the prepaid token path and the x402 path.
 */
export interface PreparedInference {
  inference: InferenceRequest;
  rawBody: string;
  model: CatalogModel;
  /** Worst-case prompt tokens (the byte estimate, or the context window for unsized input). */
  inputTokens: number;
  /** The per-choice output limit: the caller's, else the model's, never past the model's. */
  maxOutputTokens: number;
  /**
   * The sources in try order, or why there are none. Kept as a value rather than thrown:
   * on the x402 paid path the payment is settled (and credited) first, then the reason is told.
   */
  routing: { type: "routed"; candidates: Candidate[] } | { type: "unroutable"; error: GatewayError };
}

/**
 * Rewrites a caller's parsed body before it is validated and sized (the token routes put a
 * stored conversation in front of a Responses turn that names `previous_response_id`).
 */
export type BodyExpansion = (body: Record<string, unknown>) => Promise<Record<string, unknown>>;

export async function prepareInference(
  app: RoutingServices,
  request: ApiRequest,
  dialect: CallerDialect,
  expand?: BodyExpansion,
): Promise<PreparedInference> {
  const routingRequest = parseRoutingHeaders(request.headers);
  const received = await readBodyText(request, app.env.MAX_BODY_BYTES);
  const parsed = parseJsonText(received);
  const expanded = expand && isRecord(parsed) ? await expand(parsed) : parsed;
  // The hold is sized from the body the upstream will get, history included.
  const rawBody = expanded === parsed ? received : JSON.stringify(expanded);
  const inference = parseInferenceRequest(dialect, expanded, rawBody);
  const model = await resolveModelOrThrow(app, inference.model);
  refuseMissingCapabilities(inference, model);
  let routing: PreparedInference["routing"];
  try {
    const candidates = translatableCandidates(
      dialect,
      inference.body,
      await inSpan("routing", { "gen_ai.request.model": model.id }, async (span) => {
        const routed = await routeRequest(app, model, routingRequest);
        span?.setAttribute("pod.candidates", routed.length);
        return routed;
      }),
      model.capabilities,
    );
    routing = { type: "routed", candidates };
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    routing = { type: "unroutable", error };
  }
  return {
    inference,
    rawBody,
    model,
    inputTokens: estimateInputTokens(inference, model.contextWindow),
    maxOutputTokens: Math.min(inference.maxTokens ?? model.maxOutputTokens, model.maxOutputTokens),
    routing,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A request for something the model cannot do is the caller's 400, before any hold or upstream call. */
function refuseMissingCapabilities(inference: InferenceRequest, model: CatalogModel): void {
  if (model.kind !== "chat")
    throw badRequest(`${model.id} is an ${model.kind} model: it cannot answer chat requests`, {
      param: "model",
    });
  if (inference.toolsOffered && !model.capabilities.tools)
    throw badRequest(`${model.id} does not support tool calling: send the request without tools`, {
      param: "tools",
    });
  if (inference.imageInput && !model.capabilities.vision)
    throw badRequest(`${model.id} does not take image input: send text only or choose a vision model`, {
      param: callerFormats[inference.dialect].inputField,
    });
}

/** The candidates, or the routing error when there are none. */
export function routedCandidates(prepared: PreparedInference): Candidate[] {
  if (prepared.routing.type === "unroutable") throw prepared.routing.error;
  return prepared.routing.candidates;
}

/** The most `outputTokens` per choice can cost at `price`: every choice is billed. */
export function worstCaseOf(prepared: PreparedInference, price: TokenPrice, outputTokens: number): bigint {
  return worstCaseCost(prepared.inputTokens, outputTokens * prepared.inference.choices, price);
}

/** The dearest rates over the candidates: a hold at them covers a failover to any. */
export function holdPrice(candidates: Candidate[]): TokenPrice {
  return highestPrice(candidates);
}
