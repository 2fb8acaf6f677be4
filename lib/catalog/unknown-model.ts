import { type CentralizedUpstreamName, centralizedUpstreamNames } from "../env";
import { GatewayError } from "../errors/gateway-error";
import type { CatalogIndex } from "./catalog-index";
import { datasetEntries } from "./dataset-entries";
import { gatewayAdditions } from "./gateway-additions";
import type { CatalogModel } from "./models";
import { resolveModel, spellings } from "./resolve-model";
import { suggestModels } from "./suggest-models";

/** Every spelling of every model the shipped dataset sells → the providers that sell it. */
type Sellers = Map<string, Set<CentralizedUpstreamName>>;

let sellers: Promise<Sellers> | undefined;

/**
 * Built on the first unknown id and kept: the shipped dataset of every provider, whether or
 * not this gateway holds its key (the catalog holds only configured providers' models), and
 * the gateway's own additions.
 */
function loadSellers(): Promise<Sellers> {
  sellers ??= datasetEntries(centralizedUpstreamNames).then((entries) => {
    const map: Sellers = new Map();
    const add = (name: string, provider: CentralizedUpstreamName) => {
      for (const spelling of spellings(name.toLowerCase())) {
        const providers = map.get(spelling) ?? new Set();
        providers.add(provider);
        map.set(spelling, providers);
      }
    };
    for (const entry of entries) add(entry.upstreamModelId, entry.provider);
    for (const model of gatewayAdditions)
      for (const price of model.prices)
        for (const name of [model.id, ...model.aliases]) add(name, price.provider);
    return map;
  });
  return sellers;
}

/** The providers of the shipped dataset that sell `modelId` (in any of its spellings) and are not configured here. */
async function unconfiguredSellers(
  modelId: string,
  configured: ReadonlySet<string>,
): Promise<CentralizedUpstreamName[]> {
  const map = await loadSellers();
  const found = new Set<CentralizedUpstreamName>();
  for (const spelling of spellings(modelId.slice(0, 200).toLowerCase()))
    for (const provider of map.get(spelling) ?? []) if (!configured.has(provider)) found.add(provider);
  return centralizedUpstreamNames.filter((provider) => found.has(provider));
}

/**
 * The 404 for a model id the catalog does not resolve, with what the caller most likely wants:
 * a model that exists but that no configured provider of this gateway sells says so and names
 * who would sell it, and up to three close ids of the catalog are named either way.
 */
async function unknownModelError(
  catalog: CatalogIndex,
  modelId: string,
  configured: ReadonlySet<string>,
): Promise<GatewayError> {
  const providers = await unconfiguredSellers(modelId, configured);
  const suggestions = suggestModels(catalog.models, modelId);
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(", ")}?` : "";
  const message =
    providers.length > 0
      ? `model ${modelId} exists but no source on this gateway serves it: it is sold by ${providers.join(", ")}, which this gateway is not configured for${hint}`
      : `model not found: ${modelId}${hint}`;
  const details = {
    ...(providers.length > 0 ? { unconfigured_providers: providers } : {}),
    ...(suggestions.length > 0 ? { suggestions } : {}),
  };
  return new GatewayError("model_not_found", message, {
    param: "model",
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
}

/** The catalog model `modelId` names, or the 404 that helps the caller find the right one. */
export async function resolveModelOrThrow(
  app: { catalog: CatalogIndex; upstreams: ReadonlyMap<string, unknown> },
  modelId: string,
): Promise<CatalogModel> {
  const model = resolveModel(app.catalog, modelId);
  if (model) return model;
  throw await unknownModelError(app.catalog, modelId, new Set(app.upstreams.keys()));
}
