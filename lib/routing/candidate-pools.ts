import type { CatalogModel } from "../catalog/models";
import { centralizedCap } from "../pricing/price-cap";
import { centralizedCandidates } from "./centralized-candidates";
import { marketplaceCandidates } from "./marketplace-candidates";
import { relayCandidates } from "./relay-candidates";
import type { RoutingServices } from "./routing-state";
import type { CandidatePools } from "./select-candidates";

/**
 * Gathers every source that could serve the model: marketplace agents and key relays
 * (already capped at the centralized price and otherwise routable) and the configured
 * centralized providers. The cap comes from every centralized price the catalog publishes,
 * whether or not this gateway holds that provider's key.
 */
export async function loadCandidatePools(
  app: RoutingServices,
  model: CatalogModel,
  options: { market: boolean } = { market: true },
): Promise<CandidatePools> {
  const centralized = centralizedCandidates(app, model);
  if (!options.market) return { market: [], centralized };
  const cap = centralizedCap(app.catalog.pricesFor(model));
  const [marketplace, relays] = await Promise.all([
    marketplaceCandidates(app, model, cap),
    relayCandidates(app, model, cap),
  ]);
  return { market: [...marketplace, ...relays], centralized };
}
