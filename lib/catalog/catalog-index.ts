import { headlineRate } from "../pricing/image-price";
import type { CatalogModel, CatalogPrice } from "./models";

/**
 * The in-memory view of the model catalog used on the hot path: canonical ids,
 * aliases, and centralized prices cheapest first.
 */
export interface CatalogIndex {
  models: CatalogModel[];
  /** Resolves a model id or alias (case-insensitive) to its canonical model. */
  resolve(modelId: string): CatalogModel | undefined;
  /** Centralized prices of a model, cheapest (input + output, the request or headline image price) first. */
  pricesFor(model: CatalogModel): CatalogPrice[];
}

function normalizeModelKey(modelId: string): string {
  return modelId.trim().toLowerCase();
}

/** A model's prices are all of one kind (per token, per request or per image), so one sum orders them. */
const orderKey = (price: CatalogPrice) =>
  price.inputPer1m +
  price.outputPer1m +
  (price.requestPrice ?? 0n) +
  (headlineRate(price.images?.generate ?? []) ?? 0n);

export function buildCatalogIndex(catalog: CatalogModel[]): CatalogIndex {
  const byKey = new Map<string, CatalogModel>();
  // A model's own id always wins; then aliases; then the ids upstreams know models by. So a
  // model routed to another's upstream id (an operator's house model) never takes its name.
  const claim = (name: string, model: CatalogModel) => {
    const key = normalizeModelKey(name);
    if (!byKey.has(key)) byKey.set(key, model);
  };
  for (const model of catalog) byKey.set(normalizeModelKey(model.id), model);
  for (const model of catalog) for (const alias of model.aliases) claim(alias, model);
  for (const model of catalog) for (const price of model.prices) claim(price.upstreamModelId, model);
  const sorted = new Map<string, CatalogPrice[]>();
  for (const model of catalog) {
    sorted.set(
      model.id,
      [...model.prices].sort((a, b) => {
        const total = orderKey(a) - orderKey(b);
        if (total !== 0n) return total < 0n ? -1 : 1;
        return a.inputPer1m < b.inputPer1m ? -1 : a.inputPer1m > b.inputPer1m ? 1 : 0;
      }),
    );
  }
  return {
    models: catalog,
    resolve: (modelId) => byKey.get(normalizeModelKey(modelId)),
    pricesFor: (model) => sorted.get(model.id) ?? [],
  };
}
