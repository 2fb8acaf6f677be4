import { headlineRate } from "../pricing/image-price";
import { centralizedCap } from "../pricing/price-cap";
import type { CatalogIndex } from "./catalog-index";
import type { CatalogModel, CatalogPrice } from "./models";

const microunits = (value: bigint | undefined) => (value === undefined ? null : Number(value));

/** The lowest of the values, or undefined for none. */
const lowest = (values: ReadonlyArray<bigint | undefined>) =>
  values.reduce<bigint | undefined>(
    (best, value) => (value === undefined || (best !== undefined && best <= value) ? best : value),
    undefined,
  );

/** The cheapest headline price per image and per edit among a model's centralized prices. */
export function cheapestImagePrices(prices: readonly CatalogPrice[]) {
  return {
    perImage: lowest(prices.map((price) => headlineRate(price.images?.generate ?? []))),
    perEdit: lowest(prices.map((price) => headlineRate(price.images?.edit ?? []))),
  };
}

/** A model's centralized prices in the unit it is sold by: per image, per request or per 1M tokens. */
function pricingOf(model: CatalogModel, prices: readonly CatalogPrice[]) {
  if (model.kind === "image") {
    const { perImage, perEdit } = cheapestImagePrices(prices);
    return { per_image: microunits(perImage), per_edit: microunits(perEdit) };
  }
  const cap = centralizedCap(prices);
  if (cap?.requestPrice !== undefined && prices.every((price) => price.requestPrice !== undefined)) {
    return { request_price_microunits: microunits(cap.requestPrice) };
  }
  return {
    input_per_1m: microunits(cap?.inputPer1m),
    output_per_1m: microunits(cap?.outputPer1m),
    cache_read_per_1m: microunits(cap?.cacheReadPer1m),
    cache_write_per_1m: microunits(cap?.cacheWritePer1m),
  };
}

/** A price that charges nothing for anything: tokens, cache, requests and images. */
function isFreePrice(price: CatalogPrice): boolean {
  const rates = [
    price.inputPer1m,
    price.outputPer1m,
    price.cacheReadPer1m,
    price.cacheWritePer1m,
    price.requestPrice,
  ];
  const images = [...(price.images?.generate ?? []), ...(price.images?.edit ?? [])];
  return (
    rates.every((rate) => rate === undefined || rate === 0n) &&
    images.every((image) => image.microunits === 0n)
  );
}

/**
 * The metadata clients read off a model listing (both `/v1/models` and the marketplace feed):
 * limits, modalities, capabilities, and the cheapest centralized price (per 1M tokens, per
 * request, or per image and per edit, in microunits) with the number of centralized providers.
 */
export function modelMetadata(catalog: CatalogIndex, model: CatalogModel) {
  const prices = catalog.pricesFor(model);
  return {
    name: model.name ?? model.id,
    kind: model.kind,
    context_length: model.contextWindow,
    max_output_tokens: model.maxOutputTokens,
    input_modalities: model.inputModalities,
    output_modalities: model.outputModalities,
    capabilities: {
      tools: model.capabilities.tools,
      vision: model.capabilities.vision,
      reasoning: model.capabilities.reasoning,
      structured_output: model.capabilities.structuredOutput,
    },
    pricing: pricingOf(model, prices),
    /** Every centralized price of it is 0: served and charged nothing (an operator's choice). */
    free: prices.length > 0 && prices.every(isFreePrice),
    provider_count: prices.length,
    aliases: model.aliases,
  };
}
