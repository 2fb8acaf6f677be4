import type { CatalogModel } from "../catalog/models";
import { resolveModel } from "../catalog/resolve-model";
import type { LiveOffer } from "../marketplace/registry";
import type { TokenPrice } from "../pricing/cost";
import { cappedListingPrice } from "../pricing/price-cap";
import type { Candidate } from "../providers/candidate";
import { findHosts } from "../providers/host-status";
import type { RoutingServices } from "./routing-state";

/** Live offers for a canonical model, whatever model id the agents advertised it under. */
export function liveOffersFor(app: RoutingServices, model: CatalogModel): LiveOffer[] {
  return app.routing.registry
    .liveOffers()
    .filter((offer) => resolveModel(app.catalog, offer.modelId)?.id === model.id);
}

/**
 * Marketplace candidates for a model: agents with a live connection and a free slot, on
 * active hosts, within the centralized cap. The job goes out through the registry, which
 * holds the slot until the response ends.
 */
export async function marketplaceCandidates(
  app: RoutingServices,
  model: CatalogModel,
  cap: TokenPrice | undefined,
  options: { includeExcluded?: boolean } = {},
): Promise<Candidate[]> {
  const offers = liveOffersFor(app, model).filter((offer) => offer.freeSlots > 0);
  if (offers.length === 0) return [];
  const hosts = await findHosts(app.database.db, [...new Set(offers.map((offer) => offer.providerId))]);
  const { registry } = app.routing;
  const candidates: Candidate[] = [];
  for (const offer of offers) {
    const host = hosts.get(offer.providerId);
    const price = cappedListingPrice(offer, cap);
    if (host?.status !== "active" || !price) continue;
    // A host its trust record excludes (canaries failed, sustained violations) is not routed.
    // (Canaries still reach it: they are how it can prove itself, or be proven a cheat.)
    if (!options.includeExcluded && app.routing.reputation.standing(offer.providerId) === "excluded")
      continue;
    candidates.push({
      route: "marketplace",
      providerId: offer.providerId,
      dialect: offer.dialect,
      upstreamModelId: offer.modelId,
      price,
      enrolledAt: host.enrolledAt,
      ...(offer.tokensPerSecond > 0 ? { announcedTokensPerSecond: offer.tokensPerSecond } : {}),
      dispatch: (body, options) => registry.dispatch(offer, body, options),
    });
  }
  return candidates;
}
