import type { HostListing } from "@pod-gateway/contracts/host-api";
import { centralizedCap, isWithinCap } from "../../pricing/price-cap";
import { relayEarningsLastDay } from "../../relays/daily-earnings";
import { type ListingView, listListings } from "../../relays/relay-listings";
import { formatUsdc } from "../../relays/usdc-amount";
import type { ApiServices } from "../api-services";

function listingView(app: ApiServices, listing: ListingView, earned: bigint): HostListing {
  const model = app.catalog.models.find((item) => item.id === listing.modelId);
  const cap = model ? centralizedCap(app.catalog.pricesFor(model)) : undefined;
  const withinCap = isWithinCap(listing, cap);
  const capReached = listing.dailyCapMicrounits !== null && earned >= listing.dailyCapMicrounits;
  return {
    model: listing.modelId,
    relay_key_id: listing.relayKeyId,
    upstream: listing.upstream,
    upstream_model_id: listing.upstreamModelId,
    input_per_1m: Number(listing.inputPer1m),
    output_per_1m: Number(listing.outputPer1m),
    enabled: listing.enabled,
    daily_cap_usdc: listing.dailyCapMicrounits === null ? null : formatUsdc(listing.dailyCapMicrounits),
    earned_last_24h_microunits: Number(earned),
    centralized_cap: cap
      ? { input_per_1m: Number(cap.inputPer1m), output_per_1m: Number(cap.outputPer1m) }
      : null,
    within_cap: withinCap,
    /** Why routing skips it right now, if it does (a pending host is reported by /v1/host/profile). */
    excluded_reason: !listing.enabled
      ? "disabled"
      : !withinCap
        ? "above_centralized_cap"
        : capReached
          ? "daily_cap_reached"
          : null,
    updated_at: listing.updatedAt.toISOString(),
  };
}

/** The host's listings with their cap and daily-cap state, as the host API shows them. */
export async function listingViews(app: ApiServices, hostId: string): Promise<HostListing[]> {
  const listings = await listListings(app.database.db, hostId);
  const views = [];
  for (const listing of listings) {
    const earned = (await relayEarningsLastDay(app.database.db, [hostId], listing.modelId)).get(hostId) ?? 0n;
    views.push(listingView(app, listing, earned));
  }
  return views;
}
