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
import { usedParameters } from "../routing/preference-filter";
import { readBodyRouting } from "../routing/provider-preferences";
import { parseRoutingHeaders, type RoutingRequest, routeRequest } from "../routing/route-request";
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
  /** The model a candidate serves: `model`, or one of the body's `models` fallbacks. */
  modelOf(candidate: Candidate): CatalogModel;
  /** Worst-case prompt tokens (the byte estimate, or the context window for unsized input). */
  inputTokens: number;
  /** The per-choice output limit: the caller's, else the model's, never past the model's. */
  maxOutputTokens: number;
  /** The caller's body as the response cache keys it: history expanded, its `cache` field out. */
  callerBody: Record<string, unknown>;
  /** The body's `cache` field as sent (undefined when absent): the response cache reads it, no upstream does. */
  cacheField: unknown;
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
  const headerRouting = parseRoutingHeaders(request.headers);
  const received = await readBodyText(request, app.env.MAX_BODY_BYTES);
  const parsed = parseJsonText(received);
  const read = expand && isRecord(parsed) ? await expand(parsed) : parsed;
  // The response cache's field is the gateway's too: taken out here, never forwarded.
  const { cache: cacheField, ...uncached } = isRecord(read) && "cache" in read ? read : {};
  const expanded = isRecord(read) && "cache" in read ? uncached : read;
  // OpenRouter's routing fields are the gateway's: read here, never forwarded.
  const bodyRouting = isRecord(expanded) ? readBodyRouting(expanded) : undefined;
  const forwarded = bodyRouting?.body ?? expanded;
  // The hold is sized from the body the upstream will get, history included.
  const rawBody = forwarded === parsed ? received : JSON.stringify(forwarded);
  const inference = parseInferenceRequest(dialect, forwarded, rawBody);
  const model = await resolveModelOrThrow(app, inference.model);
  refuseMissingCapabilities(inference, model);
  const fallbacks: CatalogModel[] = [];
  for (const id of bodyRouting?.fallbackModels ?? []) {
    const fallback = await resolveModelOrThrow(app, id);
    refuseMissingCapabilities(inference, fallback);
    if (fallback !== model && !fallbacks.includes(fallback)) fallbacks.push(fallback);
  }
  const routingRequest: RoutingRequest = bodyRouting?.preferences
    ? {
        ...headerRouting,
        preferences: { value: bodyRouting.preferences, parameters: usedParameters(inference.body) },
      }
    : headerRouting;
  const served = new Map<Candidate, CatalogModel>();
  const routing = await routeModels(app, dialect, inference, [model, ...fallbacks], routingRequest, served);
  const models = [model, ...fallbacks];
  return {
    inference,
    rawBody,
    model,
    callerBody: isRecord(expanded) ? expanded : inference.body,
    cacheField,
    modelOf: (candidate) => served.get(candidate) ?? model,
    // A fallback may have a smaller window or output limit: the hold and the request fit every model.
    inputTokens: Math.min(...models.map((each) => estimateInputTokens(inference, each.contextWindow))),
    maxOutputTokens: Math.min(
      ...models.map((each) => Math.min(inference.maxTokens ?? each.maxOutputTokens, each.maxOutputTokens)),
    ),
    routing,
  };
}

/**
 * The try order over the request's model and then each `models` fallback in turn; a model
 * nobody can serve is passed over. Unroutable only when no model has a source: then the
 * first model's reason is told.
 */
async function routeModels(
  app: RoutingServices,
  dialect: CallerDialect,
  inference: InferenceRequest,
  models: CatalogModel[],
  routingRequest: RoutingRequest,
  served: Map<Candidate, CatalogModel>,
): Promise<PreparedInference["routing"]> {
  const candidates: Candidate[] = [];
  let firstError: GatewayError | undefined;
  for (const each of models) {
    try {
      const routed = translatableCandidates(
        dialect,
        inference.body,
        await inSpan("routing", { "gen_ai.request.model": each.id }, async (span) => {
          const routed = await routeRequest(app, each, routingRequest);
          span?.setAttribute("pod.candidates", routed.length);
          return routed;
        }),
        each.capabilities,
      );
      for (const candidate of routed) served.set(candidate, each);
      candidates.push(...routed);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      firstError ??= error;
    }
  }
  if (candidates.length > 0) return { type: "routed", candidates };
  return {
    type: "unroutable",
    error: firstError ?? new GatewayError("no_provider", "no provider for the request"),
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
