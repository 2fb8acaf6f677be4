import type { CatalogModel } from "../catalog/models";
import { GatewayError } from "../errors/gateway-error";
import type { Candidate } from "../providers/candidate";
import { findHosts } from "../providers/host-status";
import { loadCandidatePools } from "./candidate-pools";
import { type PriceCeilings, parsePriceCeilings } from "./price-ceilings";
import { checkPinsAgainstMode, checkPinsKnown, type ProviderPin, parseProviderPins } from "./provider-pins";
import { parseRoutingMode, type RoutingMode } from "./routing-mode";
import type { RoutingServices } from "./routing-state";
import { defaultMaxMarketAttempts, type Selection, selectCandidates } from "./select-candidates";

/** The caller's routing instructions, from the `X-Pod-*` request headers. */
export interface RoutingRequest {
  mode: RoutingMode;
  ceilings: PriceCeilings;
  pins: ProviderPin[] | undefined;
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
  const { health, reputation } = app.routing;
  const selection = selectCandidates(pools, {
    mode: routing.mode,
    ceilings: routing.ceilings,
    pins: routing.pins,
    isDemoted: (providerId) => health.isDemoted(providerId) || reputation.standing(providerId) === "demoted",
    maxMarketAttempts: defaultMaxMarketAttempts,
  });
  if (selection.type === "selected") return selection.candidates;
  throw selectionError(selection, model, routing.mode, unconfiguredSellers(app, model));
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
  mode: RoutingMode,
  unconfigured: string[],
): GatewayError {
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
    default: {
      const unreachable: never = selection;
      return unreachable;
    }
  }
}
