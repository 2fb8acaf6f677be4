import { asc } from "drizzle-orm";
import type { Executor } from "../db/client";
import { centralizedPrices, models } from "../db/schema";
import type { CentralizedUpstreamName } from "../env";
import { imageRatesFromStored } from "./image-rates-record";
import { type CatalogModel, type CatalogPrice, type ModelKind, modelKinds } from "./models";

export interface StoredPrice extends CatalogPrice {
  source: string;
  operatorPinned: boolean;
}

export interface StoredModel extends CatalogModel {
  prices: StoredPrice[];
  disabled: boolean;
  operatorEdited: boolean;
  source: string;
}

/** Every model in the database with its prices, disabled ones included, in id order. */
export async function loadStoredCatalog(executor: Executor): Promise<StoredModel[]> {
  const [modelRows, priceRows] = await Promise.all([
    executor.select().from(models).orderBy(asc(models.id)),
    executor.select().from(centralizedPrices),
  ]);
  const pricesByModel = new Map<string, StoredPrice[]>();
  for (const row of priceRows) {
    const list = pricesByModel.get(row.modelId) ?? [];
    list.push({
      provider: row.provider as CentralizedUpstreamName,
      upstreamModelId: row.upstreamModelId,
      inputPer1m: row.inputPer1m,
      outputPer1m: row.outputPer1m,
      cacheReadPer1m: row.cacheReadPer1m,
      cacheWritePer1m: row.cacheWritePer1m,
      ...(row.requestPrice === null ? {} : { requestPrice: row.requestPrice }),
      ...(row.imageRates === null ? {} : { images: imageRatesFromStored(row.imageRates) }),
      source: row.source,
      operatorPinned: row.operatorPinned,
    });
    pricesByModel.set(row.modelId, list);
  }
  return modelRows.map((row) => ({
    id: row.id,
    ownedBy: row.ownedBy,
    ...(row.name ? { name: row.name } : {}),
    kind: modelKinds.find((kind) => kind === row.kind) ?? ("chat" satisfies ModelKind),
    contextWindow: row.contextWindow,
    maxOutputTokens: row.maxOutputTokens,
    inputModalities: row.inputModalities,
    outputModalities: row.outputModalities,
    aliases: row.aliases,
    prices: pricesByModel.get(row.id) ?? [],
    capabilities: {
      tools: row.supportsTools,
      vision: row.inputModalities.includes("image"),
      reasoning: row.supportsReasoning,
      structuredOutput: row.supportsStructuredOutput,
    },
    ...(row.uncensored ? { uncensored: true } : {}),
    disabled: row.disabled,
    operatorEdited: row.operatorEdited,
    source: row.source,
  }));
}
