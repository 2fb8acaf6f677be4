import { eq } from "drizzle-orm";
import { z } from "zod";
import { catalogState } from "../db/schema";
import type { CentralizedUpstreamName } from "../env";
import { log } from "../log";
import type { CentralizedUpstream } from "../providers/centralized-upstreams";
import type { Services } from "../services";
import { type ApplyResult, applyCatalogEntries } from "./apply-entries";
import { boundedTokens, type CatalogEntry, type EntryPrices, ownerOf, soldPrices } from "./catalog-entry";
import type { CatalogStore } from "./catalog-store";
import { entriesFromModelsDevProvider, modelsDevProviderIds } from "./dataset-entries";

/** A model list is small; anything past this is not one. */
const maxListBytes = 20_000_000;
const listTimeoutMs = 15_000;

/** OpenRouter's `GET /models`: prices are dollars per token, as decimal strings. */
const openrouterList = z.object({
  data: z.array(
    z.looseObject({
      id: z.string().min(1).max(200),
      name: z.string().max(200).nullish(),
      context_length: z.number().nullish(),
      pricing: z.looseObject({
        prompt: z.string(),
        completion: z.string(),
        input_cache_read: z.string().nullish(),
        input_cache_write: z.string().nullish(),
      }),
      architecture: z
        .looseObject({
          input_modalities: z.array(z.string()).nullish(),
          output_modalities: z.array(z.string()).nullish(),
        })
        .nullish(),
      top_provider: z.looseObject({ max_completion_tokens: z.number().nullish() }).nullish(),
      supported_parameters: z.array(z.string()).nullish(),
    }),
  ),
});

/** Together's `GET /models`: an array; prices are dollars per 1M tokens. */
const togetherList = z.array(
  z.looseObject({
    id: z.string().min(1).max(200),
    type: z.string().nullish(),
    display_name: z.string().max(200).nullish(),
    context_length: z.number().nullish(),
    pricing: z.looseObject({ input: z.number(), output: z.number() }).nullish(),
  }),
);

/** A chat model a host lists and sells under the vendor its id names (`vendor/model`). */
const listedChat = (
  provider: "openrouter" | "together",
  row: { id: string; name: string | null | undefined; contextLength: number | null | undefined },
  details: Pick<CatalogEntry, "maxOutputTokens" | "inputModalities" | "outputModalities" | "capabilities">,
  prices: EntryPrices,
): CatalogEntry => ({
  provider,
  upstreamModelId: row.id,
  name: row.name ?? undefined,
  ownedBy: ownerOf(row.id, provider),
  kind: "chat",
  contextWindow: boundedTokens(row.contextLength, 8192),
  ...details,
  ...prices,
});

function openrouterEntries(body: unknown): CatalogEntry[] {
  const parsed = openrouterList.safeParse(body);
  if (!parsed.success) throw new Error("OpenRouter model list did not parse");
  return parsed.data.data.flatMap((row): CatalogEntry[] => {
    const { pricing } = row;
    const prices = soldPrices(
      {
        input: pricing.prompt,
        output: pricing.completion,
        cacheRead: pricing.input_cache_read,
        cacheWrite: pricing.input_cache_write,
      },
      12,
    );
    if (!prices) return [];
    const inputModalities = row.architecture?.input_modalities?.slice(0, 8) ?? ["text"];
    const parameters = row.supported_parameters ?? [];
    const listing = { id: row.id, name: row.name, contextLength: row.context_length };
    const details = {
      maxOutputTokens: boundedTokens(row.top_provider?.max_completion_tokens, 4096),
      inputModalities,
      outputModalities: row.architecture?.output_modalities?.slice(0, 8) ?? ["text"],
      capabilities: {
        tools: parameters.includes("tools"),
        vision: inputModalities.includes("image"),
        reasoning: parameters.includes("reasoning"),
        structuredOutput: parameters.includes("structured_outputs"),
      },
    };
    return [listedChat("openrouter", listing, details, prices)];
  });
}

function togetherEntries(body: unknown): CatalogEntry[] {
  const parsed = togetherList.safeParse(body);
  if (!parsed.success) throw new Error("Together model list did not parse");
  return parsed.data.flatMap((row): CatalogEntry[] => {
    if (row.type !== "chat" || !row.pricing) return [];
    const prices = soldPrices({ input: row.pricing.input, output: row.pricing.output }, 6);
    if (!prices) return [];
    const listing = { id: row.id, name: row.display_name, contextLength: row.context_length };
    const details = {
      maxOutputTokens: 4096,
      inputModalities: ["text"],
      outputModalities: ["text"],
      capabilities: { tools: true, vision: false, reasoning: false, structuredOutput: false },
    };
    return [listedChat("together", listing, details, prices)];
  });
}

/** A JSON body from `url`, bounded in size and time. */
async function fetchJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(listTimeoutMs) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const text = await response.text();
  if (text.length > maxListBytes) throw new Error(`${url} answered more than ${maxListBytes} bytes`);
  return JSON.parse(text);
}

const listReaders: Partial<Record<CentralizedUpstreamName, (body: unknown) => CatalogEntry[]>> = {
  openrouter: openrouterEntries,
  together: togetherEntries,
};

export interface RefreshReport extends ApplyResult {
  sources: Array<{ source: string; entries: number } | { source: string; error: string }>;
}

async function readSource(
  source: string,
  read: () => Promise<CatalogEntry[]>,
  report: RefreshReport,
): Promise<CatalogEntry[]> {
  try {
    const entries = await read();
    report.sources.push({ source, entries: entries.length });
    return entries;
  } catch (error) {
    // Offline or a broken list: the catalog keeps what it has.
    log.warn("catalog source unavailable", { source, error });
    report.sources.push({ source, error: error instanceof Error ? error.message : String(error) });
    return [];
  }
}

/**
 * Refreshes prices and adds models from the configured upstreams that publish prices with
 * their model list (OpenRouter, Together) and from the dataset's live source (models.dev)
 * when `MODELS_DEV_URL` is set and reachable. Operator prices are never overwritten.
 */
/** What a refresh reads and writes: the upstreams it asks, the store it reloads. */
export interface CatalogRefreshServices extends Services {
  upstreams: ReadonlyMap<CentralizedUpstreamName, CentralizedUpstream>;
  catalogStore: CatalogStore;
}

export async function refreshCatalog(app: CatalogRefreshServices, actor = "refresh"): Promise<RefreshReport> {
  const report: RefreshReport = { modelsAdded: 0, pricesAdded: 0, pricesChanged: 0, sources: [] };
  const entries: CatalogEntry[] = [];
  for (const [name, upstream] of app.upstreams) {
    const reader = listReaders[name];
    if (!reader) continue;
    entries.push(
      ...(await readSource(name, async () => reader(await fetchJson(...listRequest(upstream))), report)),
    );
  }
  const modelsDevUrl = app.env.MODELS_DEV_URL;
  if (modelsDevUrl) {
    entries.push(
      ...(await readSource(
        "models.dev",
        async () => {
          const body = await fetchJson(modelsDevUrl, {});
          const blocks = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
          return [...app.upstreams.keys()].flatMap((name) =>
            entriesFromModelsDevProvider(name, blocks[modelsDevProviderIds[name]]),
          );
        },
        report,
      )),
    );
  }
  const applied = await applyCatalogEntries(app.database.db, entries, {
    actor: `${actor}:${report.sources.map((source) => source.source).join("+") || "none"}`,
    updatePrices: true,
  });
  await app.database.db.update(catalogState).set({ refreshedAt: new Date() }).where(eq(catalogState.id, 1));
  await app.catalogStore.changed();
  return { ...report, ...applied };
}

function listRequest(upstream: CentralizedUpstream): [string, Record<string, string>] {
  return [`${upstream.baseUrl.replace(/\/$/, "")}/models`, { authorization: `Bearer ${upstream.apiKey}` }];
}
