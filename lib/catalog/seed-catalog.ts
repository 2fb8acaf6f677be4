import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { catalogState } from "../db/schema";
import type { CentralizedUpstreamName } from "../env";
import { applyCatalogEntries } from "./apply-entries";
import type { CatalogEntry } from "./catalog-entry";
import { datasetEntries, datasetName } from "./dataset-entries";
import { gatewayAdditions } from "./gateway-additions";

/** The gateway's own additions as entries for the given providers (all of them when none is configured). */
function additionEntries(providers: ReadonlySet<string>): CatalogEntry[] {
  return gatewayAdditions.flatMap((model) =>
    model.prices
      .filter((price) => providers.size === 0 || providers.has(price.provider))
      .map((price) => ({
        ...price,
        modelId: model.id,
        aliases: model.aliases,
        name: model.name,
        ownedBy: model.ownedBy,
        kind: model.kind,
        contextWindow: model.contextWindow,
        maxOutputTokens: model.maxOutputTokens,
        inputModalities: model.inputModalities,
        outputModalities: model.outputModalities,
        capabilities: model.capabilities,
        ...(model.uncensored ? { uncensored: true } : {}),
      })),
  );
}

/**
 * At start: seeds every configured provider not seeded before from the shipped dataset and
 * the gateway's additions, once (later changes come from refreshes and the operator, and a
 * restart never reverts them). With no upstream configured (the simulator, a marketplace-only
 * gateway) the additions alone are kept present, so there is something to route and cap.
 */
export async function seedCatalog(
  database: Database,
  configured: readonly CentralizedUpstreamName[],
): Promise<void> {
  const [state] = await database.select().from(catalogState).where(eq(catalogState.id, 1));
  const seeded = new Set(state?.seededProviders ?? []);
  const pending = configured.filter((provider) => !seeded.has(provider));
  if (configured.length === 0) {
    await applyCatalogEntries(database, additionEntries(new Set()), {
      actor: "seed:gateway",
      updatePrices: false,
    });
    return;
  }
  if (pending.length === 0) return;
  await applyCatalogEntries(
    database,
    [...additionEntries(new Set(pending)), ...(await datasetEntries(pending))],
    {
      actor: `seed:${datasetName}`,
      updatePrices: false,
    },
  );
  const providers = [...new Set([...seeded, ...pending])];
  await database
    .insert(catalogState)
    .values({ id: 1, seededProviders: providers })
    .onConflictDoUpdate({ target: catalogState.id, set: { seededProviders: providers } });
}
