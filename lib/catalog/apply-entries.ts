import { and, eq, sql } from "drizzle-orm";
import type { Database, Executor } from "../db/client";
import { catalogChanges, catalogState, centralizedPrices, models } from "../db/schema";
import { type CatalogEntry, canonicalModelId } from "./catalog-entry";
import { imageRatesRecord } from "./image-rates-record";
import { spellings } from "./resolve-model";
import { loadStoredCatalog, type StoredPrice } from "./stored-catalog";

export interface ApplyResult {
  modelsAdded: number;
  pricesAdded: number;
  pricesChanged: number;
}

/** Direct vendors first, so a reseller's `vendor/model` joins the vendor's model rather than founding it. */
const providerOrder = ["openai", "anthropic", "groq", "together", "venice", "openrouter"];

type PriceColumns = Pick<
  StoredPrice,
  "inputPer1m" | "outputPer1m" | "cacheReadPer1m" | "cacheWritePer1m" | "requestPrice" | "images"
>;

const key = (id: string) => id.trim().toLowerCase();

/** A price as the change log records it: strings, because JSON has no bigint. */
export function priceRecord(
  price: Omit<PriceColumns, "requestPrice" | "images"> & {
    upstreamModelId: string;
    requestPrice?: bigint | null | undefined;
    images?: PriceColumns["images"];
  },
) {
  return {
    upstream_model_id: price.upstreamModelId,
    input_per_1m: price.inputPer1m.toString(),
    output_per_1m: price.outputPer1m.toString(),
    cache_read_per_1m: price.cacheReadPer1m.toString(),
    cache_write_per_1m: price.cacheWritePer1m.toString(),
    ...(price.requestPrice === undefined || price.requestPrice === null
      ? {}
      : { request_price: price.requestPrice.toString() }),
    ...(price.images === undefined ? {} : { image_rates: imageRatesRecord(price.images) }),
  };
}

const samePrice = (a: PriceColumns, b: PriceColumns) =>
  a.inputPer1m === b.inputPer1m &&
  a.outputPer1m === b.outputPer1m &&
  a.cacheReadPer1m === b.cacheReadPer1m &&
  a.cacheWritePer1m === b.cacheWritePer1m &&
  a.requestPrice === b.requestPrice &&
  JSON.stringify(a.images && imageRatesRecord(a.images)) ===
    JSON.stringify(b.images && imageRatesRecord(b.images));

/** Bumps the catalog version, so every process reloads its in-memory index. */
export async function bumpCatalogVersion(executor: Executor): Promise<void> {
  await executor
    .insert(catalogState)
    .values({ id: 1, version: sql`1` })
    .onConflictDoUpdate({ target: catalogState.id, set: { version: sql`${catalogState.version} + 1` } });
}

/**
 * Merges entries into the catalog in one transaction: an entry joins the model its id
 * resolves to (vendor prefix, date and `4.5`/`4-5` spellings, as requests resolve), or
 * founds a new one. A new price is added; an existing one is updated only when
 * `updatePrices` is set and the operator has not pinned it. Every addition and change is
 * written to the change log under `actor`.
 */
export async function applyCatalogEntries(
  executor: Database,
  entries: readonly CatalogEntry[],
  options: { actor: string; updatePrices: boolean },
): Promise<ApplyResult> {
  const result: ApplyResult = { modelsAdded: 0, pricesAdded: 0, pricesChanged: 0 };
  await executor.transaction(async (transaction) => {
    // One merge at a time (two replicas seeding at once would both add the same rows).
    await transaction.execute(sql`SELECT pg_advisory_xact_lock(21021)`);
    const stored = await loadStoredCatalog(transaction);
    const owner = new Map<string, string>();
    const prices = new Map<string, Map<string, StoredPrice>>();
    const claim = (name: string, modelId: string) => {
      if (!owner.has(key(name))) owner.set(key(name), modelId);
    };
    for (const model of stored) {
      claim(model.id, model.id);
      for (const alias of model.aliases) claim(alias, model.id);
      prices.set(model.id, new Map(model.prices.map((price) => [price.provider, price])));
      for (const price of model.prices) claim(price.upstreamModelId, model.id);
    }
    const resolve = (id: string) => {
      for (const spelling of spellings(id)) {
        const found = owner.get(key(spelling));
        if (found) return found;
      }
      return undefined;
    };
    const changes: Array<typeof catalogChanges.$inferInsert> = [];
    const newModels: Array<typeof models.$inferInsert> = [];
    const newPrices: Array<typeof centralizedPrices.$inferInsert> = [];
    const sorted = [...entries].sort(
      (a, b) =>
        (a.modelId ? 0 : 1) - (b.modelId ? 0 : 1) ||
        providerOrder.indexOf(a.provider) - providerOrder.indexOf(b.provider) ||
        b.upstreamModelId.localeCompare(a.upstreamModelId),
    );
    for (const entry of sorted) {
      let modelId = entry.modelId ?? resolve(entry.upstreamModelId);
      const existing = modelId ? prices.get(modelId)?.get(entry.provider) : undefined;
      // A second snapshot from the same provider is its own model under its full id.
      if (existing && existing.upstreamModelId !== entry.upstreamModelId && !entry.modelId) {
        const fullId = key(entry.upstreamModelId.slice(entry.upstreamModelId.indexOf("/") + 1));
        modelId = owner.has(fullId) ? undefined : fullId;
        if (!modelId) continue;
      }
      if (!modelId || !prices.has(modelId)) {
        const id = modelId ?? canonicalModelId(entry.upstreamModelId);
        // `claude-opus-4.1` is also asked for as `claude-opus-4-1` (Anthropic's own spelling);
        // requests are only respelled the other way, so the dashed one is kept as an alias.
        const dashed = id.replace(/(\d)\.(\d)/g, "$1-$2");
        const aliases = [
          ...new Set([
            entry.upstreamModelId,
            ...(owner.has(key(dashed)) ? [] : [dashed]),
            ...(entry.aliases ?? []),
          ]),
        ].filter((alias) => key(alias) !== key(id));
        newModels.push({
          id,
          ownedBy: entry.ownedBy,
          name: entry.name ?? null,
          kind: entry.kind,
          contextWindow: entry.contextWindow,
          maxOutputTokens: entry.maxOutputTokens,
          aliases,
          inputModalities: entry.inputModalities,
          outputModalities: entry.outputModalities,
          supportsTools: entry.capabilities.tools,
          supportsReasoning: entry.capabilities.reasoning,
          supportsStructuredOutput: entry.capabilities.structuredOutput,
          uncensored: entry.uncensored ?? false,
          source: options.actor,
        });
        changes.push({
          actor: options.actor,
          modelId: id,
          action: "model-added",
          after: { name: entry.name },
        });
        claim(id, id);
        for (const alias of aliases) claim(alias, id);
        prices.set(id, new Map());
        modelId = id;
        result.modelsAdded += 1;
      }
      const current = prices.get(modelId)?.get(entry.provider);
      if (!current) {
        const price: StoredPrice = { ...entry, source: options.actor, operatorPinned: false };
        prices.get(modelId)?.set(entry.provider, price);
        claim(entry.upstreamModelId, modelId);
        newPrices.push({ modelId, ...pricesOf(entry), source: options.actor });
        changes.push({
          actor: options.actor,
          modelId,
          provider: entry.provider,
          action: "price-added",
          after: priceRecord(entry),
        });
        result.pricesAdded += 1;
        continue;
      }
      if (!options.updatePrices || current.operatorPinned || samePrice(current, entry)) continue;
      await transaction
        .update(centralizedPrices)
        .set({ ...pricesOf(entry), source: options.actor, updatedAt: new Date() })
        .where(and(eq(centralizedPrices.modelId, modelId), eq(centralizedPrices.provider, entry.provider)));
      changes.push({
        actor: options.actor,
        modelId,
        provider: entry.provider,
        action: "price-changed",
        before: priceRecord(current),
        after: priceRecord(entry),
      });
      prices.get(modelId)?.set(entry.provider, {
        ...current,
        upstreamModelId: entry.upstreamModelId,
        inputPer1m: entry.inputPer1m,
        outputPer1m: entry.outputPer1m,
        cacheReadPer1m: entry.cacheReadPer1m,
        cacheWritePer1m: entry.cacheWritePer1m,
        requestPrice: entry.requestPrice,
        images: entry.images,
      });
      result.pricesChanged += 1;
    }
    for (const chunk of chunks(newModels)) await transaction.insert(models).values(chunk);
    for (const chunk of chunks(newPrices)) await transaction.insert(centralizedPrices).values(chunk);
    for (const chunk of chunks(changes)) await transaction.insert(catalogChanges).values(chunk);
    if (changes.length > 0) await bumpCatalogVersion(transaction);
  });
  return result;
}

function pricesOf(entry: CatalogEntry) {
  return {
    provider: entry.provider,
    upstreamModelId: entry.upstreamModelId,
    inputPer1m: entry.inputPer1m,
    outputPer1m: entry.outputPer1m,
    cacheReadPer1m: entry.cacheReadPer1m,
    cacheWritePer1m: entry.cacheWritePer1m,
    requestPrice: entry.requestPrice ?? null,
    imageRates: entry.images ? imageRatesRecord(entry.images) : null,
  };
}

function chunks<T>(rows: T[], size = 200): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < rows.length; index += size) out.push(rows.slice(index, index + size));
  return out;
}
