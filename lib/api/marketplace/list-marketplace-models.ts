import { cheapestImagePrices, modelMetadata } from "../../catalog/model-view";
import type { CatalogModel } from "../../catalog/models";
import { resolveModel } from "../../catalog/resolve-model";
import { jsonResponse } from "../../http/responses";
import { headlineRate } from "../../pricing/image-price";
import { centralizedCap } from "../../pricing/price-cap";
import { loadRoutableListings } from "../../relays/routable-listings";
import { loadCandidatePools } from "../../routing/candidate-pools";
import { liveOffersFor } from "../../routing/marketplace-candidates";
import { modelEndpoints } from "../../routing/model-endpoints";
import { rankCandidates } from "../../routing/rank-candidates";
import { performanceKey } from "../../routing/source-performance";
import type { ApiServices } from "../api-services";
import type { ApiCall } from "../route-definition";

const microunits = (value: bigint | undefined) => (value === undefined ? null : Number(value));

/**
 * An image model's row, in the reference's shape: per image and per edit, no per-token
 * fields. Images are sold by centralized providers only, so cheapest is centralized.
 */
function imageRow(app: ApiServices, model: CatalogModel) {
  const prices = app.catalog.pricesFor(model).filter((price) => app.upstreams.get(price.provider));
  const centralized = cheapestImagePrices(app.catalog.pricesFor(model));
  const routable = cheapestImagePrices(prices);
  return {
    model_id: model.id,
    modality: "image",
    centralized_price_per_image: microunits(centralized.perImage),
    cheapest_price_per_image: microunits(routable.perImage ?? centralized.perImage),
    cheapest_price_per_edit: microunits(routable.perEdit ?? centralized.perEdit),
    centralized_providers: prices.map((price) => ({
      provider: price.provider,
      price_per_image: microunits(headlineRate(price.images?.generate ?? [])),
      price_per_edit: microunits(headlineRate(price.images?.edit ?? [])),
    })),
    marketplace_provider_count: 0,
    marketplace_total_tps: 0,
    uncensored: model.uncensored === true,
    ...modelMetadata(app.catalog, model),
  };
}

/**
 * A text or embedding model's row: per token, or (when the cheapest source sells per request)
 * `pricing_mode: "per_request"` with `request_price_microunits` and the token prices null.
 */
async function tokenRow(app: ApiServices, model: CatalogModel, withMarket: boolean) {
  const pools = await loadCandidatePools(app, model, { market: withMarket });
  const figuresOf = (providerId: string) =>
    app.routing.performance.figures(performanceKey(providerId, model.id));
  // The endpoints listing's own values (GET /v1/models/{id}/endpoints), so both say the same.
  const endpoints = await modelEndpoints(app, model, pools);
  const endpointOf = new Map(endpoints.map((endpoint) => [`${endpoint.route}|${endpoint.tag}`, endpoint]));
  // What the gateway measured, null for a source it has not served this model through yet.
  const measured = (route: string, providerId: string) => {
    const endpoint = endpointOf.get(`${route}|${providerId}`);
    return {
      route,
      uptime_last_30m: endpoint?.uptime_last_30m ?? null,
      performance: endpoint && endpoint.performance.requests > 0 ? endpoint.performance : null,
    };
  };
  const cap = centralizedCap(app.catalog.pricesFor(model));
  const cheapest = rankCandidates([...pools.market, ...pools.centralized])[0]?.price ?? cap;
  const perRequest = cheapest?.requestPrice !== undefined;
  const tokenPrice = (value: bigint | undefined) => (perRequest ? null : microunits(value));
  const tokensPerSecond = new Map(
    liveOffersFor(app, model).map((offer) => [offer.providerId, offer.tokensPerSecond]),
  );
  return {
    model_id: model.id,
    pricing_mode: perRequest ? "per_request" : "per_token",
    ...(perRequest ? { request_price_microunits: microunits(cheapest?.requestPrice) } : {}),
    cheapest_input_per_1m: tokenPrice(cheapest?.inputPer1m),
    cheapest_output_per_1m: tokenPrice(cheapest?.outputPer1m),
    centralized_input_per_1m: tokenPrice(cap?.inputPer1m),
    centralized_output_per_1m: tokenPrice(cap?.outputPer1m),
    centralized_providers: pools.centralized.map(({ providerId, price }) =>
      price.requestPrice === undefined
        ? {
            provider: providerId,
            input_per_1m: Number(price.inputPer1m),
            output_per_1m: Number(price.outputPer1m),
            ...measured("centralized", providerId),
          }
        : {
            provider: providerId,
            input_per_1m: null,
            output_per_1m: null,
            request_price_microunits: Number(price.requestPrice),
            ...measured("centralized", providerId),
          },
    ),
    // Each host and key relay, as the endpoints listing shows it.
    marketplace_providers: endpoints
      .filter((endpoint) => endpoint.route !== "centralized")
      .map((endpoint) => ({
        provider: endpoint.tag,
        input_per_1m: endpoint.input_per_1m,
        output_per_1m: endpoint.output_per_1m,
        announced_tokens_per_second: endpoint.announced_tokens_per_second,
        ...measured(endpoint.route, endpoint.tag),
      })),
    marketplace_provider_count: new Set(pools.market.map((candidate) => candidate.providerId)).size,
    marketplace_total_tps: [...tokensPerSecond.values()].reduce((sum, value) => sum + value, 0),
    // The same supply at the speed the gateway measured, where it has (announced elsewhere).
    marketplace_measured_tps: Number(
      [...tokensPerSecond]
        .reduce((sum, [providerId, announced]) => {
          const figures = figuresOf(providerId);
          return sum + (figures.measured ? (figures.tokensPerSecond ?? 0) : announced);
        }, 0)
        .toFixed(1),
    ),
    uncensored: model.uncensored === true,
    ...modelMetadata(app.catalog, model),
  };
}

/**
 * GET /v1/marketplace/models – public catalogue: per model the cheapest price a request can
 * get now, the centralized cap (the lowest published centralized price on each axis), the
 * centralized providers this gateway routes to (cheapest first), and marketplace supply
 * (providers with a routable marketplace or key-relay listing, and their reported throughput).
 * Rows come in the reference feed's three shapes: per token, per request, and image.
 */
export async function listMarketplaceModels({ app }: ApiCall<"none">): Promise<Response> {
  // Hundreds of models, few with supply: ask the database once which have any, not per model.
  const supplied = new Set((await loadRoutableListings(app.database.db)).map((listing) => listing.modelId));
  for (const offer of app.routing.registry.liveOffers()) {
    const model = resolveModel(app.catalog, offer.modelId);
    if (model) supplied.add(model.id);
  }
  const models = [];
  for (const model of app.catalog.models) {
    models.push(
      model.kind === "image" ? imageRow(app, model) : await tokenRow(app, model, supplied.has(model.id)),
    );
  }
  return jsonResponse({ models }, 200, { "cache-control": "public, max-age=5" });
}
