import { resolveModel } from "../../catalog/resolve-model";
import { jsonResponse } from "../../http/responses";
import { centralizedCap, isWithinCap } from "../../pricing/price-cap";
import { listActiveHosts } from "../../providers/host-status";
import { loadRoutableListings } from "../../relays/routable-listings";
import { centralizedCandidates } from "../../routing/centralized-candidates";
import type { ApiCall } from "../route-definition";

interface ProviderModel {
  model_id: string;
  route: "centralized" | "marketplace" | "key-relay";
  input_per_1m: number;
  output_per_1m: number;
  /** Marketplace and relay prices above the centralized cap are listed but never routed. */
  within_cap: boolean;
}

/**
 * GET /v1/providers – every active provider and what it sells: the centralized providers
 * this gateway is configured for (by name) and the active hosts (by provider id) with their
 * key-relay listings and connected marketplace offers. Ids listed here are what
 * `X-Pod-Providers` accepts.
 */
export async function listProviders({ app }: ApiCall<"none">): Promise<Response> {
  const capOf = (modelId: string) => {
    const model = resolveModel(app.catalog, modelId);
    return model ? { model, cap: centralizedCap(app.catalog.pricesFor(model)) } : undefined;
  };
  const centralized = new Map<string, ProviderModel[]>();
  for (const model of app.catalog.models) {
    for (const candidate of centralizedCandidates(app, model)) {
      const models = centralized.get(candidate.providerId) ?? [];
      models.push({
        model_id: model.id,
        route: "centralized",
        input_per_1m: Number(candidate.price.inputPer1m),
        output_per_1m: Number(candidate.price.outputPer1m),
        within_cap: true,
      });
      centralized.set(candidate.providerId, models);
    }
  }

  const hostModels = new Map<string, ProviderModel[]>();
  const add = (hostId: string, entry: ProviderModel) =>
    hostModels.set(hostId, [...(hostModels.get(hostId) ?? []), entry]);
  for (const listing of await loadRoutableListings(app.database.db)) {
    add(listing.hostId, {
      model_id: listing.modelId,
      route: "key-relay",
      input_per_1m: Number(listing.inputPer1m),
      output_per_1m: Number(listing.outputPer1m),
      within_cap: isWithinCap(listing, capOf(listing.modelId)?.cap),
    });
  }
  const online = new Set<string>();
  for (const offer of app.routing.registry.liveOffers()) {
    const resolved = capOf(offer.modelId);
    if (!resolved) continue;
    online.add(offer.providerId);
    add(offer.providerId, {
      model_id: resolved.model.id,
      route: "marketplace",
      input_per_1m: Number(offer.inputPer1m),
      output_per_1m: Number(offer.outputPer1m),
      within_cap: isWithinCap(offer, resolved.cap),
    });
  }

  const providers = [
    ...[...centralized].map(([name, models]) => ({
      provider_id: name,
      kind: "centralized",
      routes: ["centralized"],
      display_name: name,
      status: "active",
      online: true,
      enrolled_at: null,
      models,
    })),
    ...(await listActiveHosts(app.database.db)).map((host) => {
      const models = hostModels.get(host.id) ?? [];
      return {
        provider_id: host.id,
        kind: "host",
        routes: [...new Set(models.map((model) => model.route))].sort(),
        display_name: host.displayName,
        status: "active",
        online: online.has(host.id) || models.some((model) => model.route === "key-relay"),
        enrolled_at: host.enrolledAt.toISOString(),
        models,
      };
    }),
  ];
  return jsonResponse({ providers }, 200, { "cache-control": "public, max-age=5" });
}
