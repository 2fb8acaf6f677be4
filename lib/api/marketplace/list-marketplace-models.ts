import { modelMetadata } from "../../catalog/model-view";
import type { CatalogModel } from "../../catalog/models";
import { resolveModel } from "../../catalog/resolve-model";
import { jsonResponse } from "../../http/responses";
import { centralizedCap } from "../../pricing/price-cap";
import { loadRoutableListings } from "../../relays/routable-listings";
import { loadCandidatePools } from "../../routing/candidate-pools";
import { liveOffersFor } from "../../routing/marketplace-candidates";
import { rankCandidates } from "../../routing/rank-candidates";
import type { ApiServices } from "../api-services";
import type { ApiCall } from "../route-definition";

const microunits = (value: bigint | undefined) => (value === undefined ? null : Number(value));

async function modelRow(app: ApiServices, model: CatalogModel, withMarket: boolean) {
  const pools = await loadCandidatePools(app, model, { market: withMarket });
  const cap = centralizedCap(app.catalog.pricesFor(model));
  const cheapest = rankCandidates([...pools.market, ...pools.centralized])[0]?.price ?? cap;
  const tokensPerSecond = new Map(
    liveOffersFor(app, model).map((offer) => [offer.providerId, offer.tokensPerSecond]),
  );
  return {
    model_id: model.id,
    pricing_mode: "per_token",
    cheapest_input_per_1m: microunits(cheapest?.inputPer1m),
    cheapest_output_per_1m: microunits(cheapest?.outputPer1m),
    centralized_input_per_1m: microunits(cap?.inputPer1m),
    centralized_output_per_1m: microunits(cap?.outputPer1m),
    centralized_providers: pools.centralized.map((candidate) => ({
      provider: candidate.providerId,
      input_per_1m: Number(candidate.price.inputPer1m),
      output_per_1m: Number(candidate.price.outputPer1m),
    })),
    marketplace_provider_count: new Set(pools.market.map((candidate) => candidate.providerId)).size,
    marketplace_total_tps: [...tokensPerSecond.values()].reduce((sum, value) => sum + value, 0),
    uncensored: model.uncensored === true,
    ...modelMetadata(app.catalog, model),
  };
}

/**
 * GET /v1/marketplace/models – public catalogue: per model the cheapest price a request can
 * get now, the centralized cap (the lowest published centralized price on each axis), the
 * centralized providers this gateway routes to (cheapest first), and marketplace supply
 * (providers with a routable marketplace or key-relay listing, and their reported throughput).
 */
export async function listMarketplaceModels({ app }: ApiCall<"none">): Promise<Response> {
  // Hundreds of models, few with supply: ask the database once which have any, not per model.
  const supplied = new Set((await loadRoutableListings(app.database.db)).map((listing) => listing.modelId));
  for (const offer of app.routing.registry.liveOffers()) {
    const model = resolveModel(app.catalog, offer.modelId);
    if (model) supplied.add(model.id);
  }
  const models = [];
  for (const model of app.catalog.models) models.push(await modelRow(app, model, supplied.has(model.id)));
  return jsonResponse({ models }, 200, { "cache-control": "public, max-age=5" });
}
