import type { Database } from "../db/client";
import { centralizedPrices, models } from "../db/schema";
import type { CatalogModel, CatalogPrice } from "./models";

/**
 * The in-memory view of the model catalog used on the hot path: canonical ids,
 * aliases, and centralized prices cheapest first.
 */
export interface CatalogIndex {
  models: CatalogModel[];
  /** Resolves a model id or alias (case-insensitive) to its canonical model. */
  resolve(modelId: string): CatalogModel | undefined;
  /** Centralized prices of a model, cheapest (input + output) first. */
  pricesFor(model: CatalogModel): CatalogPrice[];
}

function normalizeModelKey(modelId: string): string {
  return modelId.trim().toLowerCase();
}

export function buildCatalogIndex(catalog: CatalogModel[]): CatalogIndex {
  const byKey = new Map<string, CatalogModel>();
  for (const model of catalog) {
    byKey.set(normalizeModelKey(model.id), model);
    for (const alias of model.aliases) byKey.set(normalizeModelKey(alias), model);
    for (const price of model.prices) byKey.set(normalizeModelKey(price.upstreamModelId), model);
  }
  const sorted = new Map<string, CatalogPrice[]>();
  for (const model of catalog) {
    sorted.set(
      model.id,
      [...model.prices].sort((a, b) => {
        const total = a.inputPer1m + a.outputPer1m - (b.inputPer1m + b.outputPer1m);
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

/** Writes the shipped catalog into the database so prices are queryable and auditable. */
export async function loadCatalogIntoDatabase(database: Database, catalog: CatalogModel[]): Promise<void> {
  await database.transaction(async (transaction) => {
    for (const model of catalog) {
      await transaction
        .insert(models)
        .values({
          id: model.id,
          ownedBy: model.ownedBy,
          contextWindow: model.contextWindow,
          maxOutputTokens: model.maxOutputTokens,
        })
        .onConflictDoUpdate({
          target: models.id,
          set: {
            ownedBy: model.ownedBy,
            contextWindow: model.contextWindow,
            maxOutputTokens: model.maxOutputTokens,
          },
        });
      for (const price of model.prices) {
        const values = {
          modelId: model.id,
          provider: price.provider,
          upstreamModelId: price.upstreamModelId,
          inputPer1m: price.inputPer1m,
          outputPer1m: price.outputPer1m,
          cacheReadPer1m: price.cacheReadPer1m,
          cacheWritePer1m: price.cacheWritePer1m,
        };
        await transaction
          .insert(centralizedPrices)
          .values(values)
          .onConflictDoUpdate({
            target: [centralizedPrices.modelId, centralizedPrices.provider],
            set: values,
          });
      }
    }
  });
}
