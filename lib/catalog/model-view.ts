import { centralizedCap } from "../pricing/price-cap";
import type { CatalogIndex } from "./catalog-index";
import type { CatalogModel } from "./models";

const microunits = (value: bigint | undefined) => (value === undefined ? null : Number(value));

/**
 * The metadata clients read off a model listing (both `/v1/models` and the marketplace feed):
 * limits, modalities, capabilities, and the cheapest centralized price per 1M tokens in
 * microunits with the number of centralized providers.
 */
export function modelMetadata(catalog: CatalogIndex, model: CatalogModel) {
  const prices = catalog.pricesFor(model);
  const cap = centralizedCap(prices);
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
    pricing: {
      input_per_1m: microunits(cap?.inputPer1m),
      output_per_1m: microunits(cap?.outputPer1m),
      cache_read_per_1m: microunits(cap?.cacheReadPer1m),
      cache_write_per_1m: microunits(cap?.cacheWritePer1m),
    },
    provider_count: prices.length,
    aliases: model.aliases,
  };
}
