import type { CatalogModel } from "../catalog/models";
import { GatewayError } from "../errors/gateway-error";
import type { Candidate } from "../providers/candidate";
import { findHosts } from "../providers/host-status";
import { loadCandidatePools } from "./candidate-pools";
import { orderByScore, orderBySort } from "./performance-order";
import { admittedBy, applyOrder, narrowingFields } from "./preference-filter";
import { type PriceCeilings, parsePriceCeilings } from "./price-ceilings";
import { checkPinsAgainstMode, checkPinsKnown, type ProviderPin, parseProviderPins } from "./provider-pins";
import { type ProviderPreferences, stricterCeilings } from "./provider-preferences";
import { parseRoutingMode, type RoutingMode } from "./routing-mode";
import type { RoutingServices } from "./routing-state";
import {
  defaultMaxMarketAttempts,
  type RoutingPolicy,
  type Selection,
  selectCandidates,
} from "./select-candidates";
import { performanceKey } from "./source-performance";

/** The caller's routing instructions, from the `X-Pod-*` request headers and the body's `provider` object. */
export interface RoutingRequest {
  mode: RoutingMode;
  ceilings: PriceCeilings;
  pins: ProviderPin[] | undefined;
  /** OpenRouter's `provider` object, and the source-dependent parameters the body uses. */
  preferences?: { value: ProviderPreferences; parameters: string[] };
}

/** Parses and cross-checks the routing headers; every malformed or contradictory value is a 400. */
export function parseRoutingHeaders(headers: Headers): RoutingRequest {
  const ceilings = parsePriceCeilings(headers);
  const mode = parseRoutingMode(headers);
  const pins = parseProviderPins(headers);
  checkPinsAgainstMode(pins, mode);
  return { mode, ceilings, pins };
}

/**
 * Picks the sources for one request, in try order, or throws the caller-facing reason there
 * are none: 400 for a pinned id nobody enrolled, 402 `no_provider_at_price` when only the
 * ceilings stand in the way, 503 `no_provider` when nobody (or no pinned provider) can serve.
 */
export async function routeRequest(
  app: RoutingServices,
  model: CatalogModel,
  routing: RoutingRequest,
): Promise<Candidate[]> {
  const pinnedIds = (routing.pins ?? []).flatMap((pin) => (pin.kind === "provider-id" ? [pin.id] : []));
  if (pinnedIds.length > 0)
    checkPinsKnown(routing.pins, new Set((await findHosts(app.database.db, pinnedIds)).keys()));
  const onlyCentralizedPins = routing.pins !== undefined && pinnedIds.length === 0;
  const pools = await loadCandidatePools(app, model, {
    market: routing.mode !== "centralized-only" && !onlyCentralizedPins,
  });
  const selection = selectCandidates(pools, routingPolicy(app, model, routing));
  if (selection.type === "selected") return selection.candidates;
  throw selectionError(selection, model, routing, unconfiguredSellers(app, model));
}

/**
 * Headers and body composed, the stricter winning: both price ceilings apply (the lower of
 * each), pins and `provider.only`/`ignore` both filter, and a pin's order beats `provider.order`
 * and `sort`. Without a `sort`, each tier is ordered by the measured-performance score.
 */
function routingPolicy(app: RoutingServices, model: CatalogModel, routing: RoutingRequest): RoutingPolicy {
  const { health, reputation, performance } = app.routing;
  const figuresOf = (candidate: Candidate) =>
    performance.figures(performanceKey(candidate.providerId, model.id));
  const preferences = routing.preferences?.value;
  const sort = preferences?.sort;
  return {
    mode: routing.mode,
    ceilings: preferences ? stricterCeilings(routing.ceilings, preferences.maxPrice) : routing.ceilings,
    pins: routing.pins,
    isDemoted: (providerId) => health.isDemoted(providerId) || reputation.standing(providerId) === "demoted",
    maxMarketAttempts: defaultMaxMarketAttempts,
    arrange: sort
      ? { order: (candidates) => orderBySort(candidates, sort, figuresOf), across: true }
      : { order: (candidates) => orderByScore(candidates, figuresOf), across: false },
    ...(preferences
      ? {
          admits: admittedBy(preferences, routing.preferences?.parameters ?? []),
          finish: (candidates: Candidate[]) =>
            applyOrder(candidates, routing.pins ? { ...preferences, order: [] } : preferences),
        }
      : {}),
  };
}

/** The catalog's providers of the model that this gateway holds no key for: who would serve it. */
function unconfiguredSellers(app: RoutingServices, model: CatalogModel): string[] {
  return [
    ...new Set(
      app.catalog
        .pricesFor(model)
        .flatMap((price) => (app.upstreams.has(price.provider) ? [] : [price.provider])),
    ),
  ];
}

function selectionError(
  selection: Exclude<Selection, { type: "selected" }>,
  model: CatalogModel,
  routing: RoutingRequest,
  unconfigured: string[],
): GatewayError {
  const mode = routing.mode;
  switch (selection.type) {
    case "no_provider":
      if (mode === "marketplace-only")
        return new GatewayError("no_provider", `no marketplace or key-relay provider for model: ${model.id}`);
      return unconfigured.length > 0
        ? new GatewayError(
            "no_provider",
            `no source on this gateway serves model ${model.id}: it is sold by ${unconfigured.join(", ")}, which this gateway is not configured for`,
            { details: { unconfigured_providers: unconfigured } },
          )
        : new GatewayError("no_provider", `no healthy provider for model: ${model.id}`);
    case "no_provider_at_price":
      return new GatewayError("no_provider_at_price", "No provider available at your price ceiling.", {
        details: {
          suggested_min_input_per_1m: Number(selection.suggestedInputPer1m),
          suggested_min_output_per_1m: Number(selection.suggestedOutputPer1m),
          ...(selection.suggestedRequestPrice === undefined
            ? {}
            : { suggested_min_request_price: Number(selection.suggestedRequestPrice) }),
        },
      });
    case "pin_unsatisfiable":
      return new GatewayError(
        "no_provider",
        `no pinned provider can serve model ${model.id}: X-Pod-Providers: ${selection.pins.join(",")}`,
        { details: { pinned_providers: selection.pins } },
      );
    case "no_provider_preferred": {
      const narrowing = routing.preferences
        ? narrowingFields(routing.preferences.value, routing.preferences.parameters)
        : [];
      return new GatewayError(
        "no_provider",
        `no source of model ${model.id} meets your provider preferences (${narrowing.join("; ")})`,
        { param: "provider" },
      );
    }
    default: {
      const unreachable: never = selection;
      return unreachable;
    }
  }
}
