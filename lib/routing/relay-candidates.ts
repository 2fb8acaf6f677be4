import type { CatalogModel } from "../catalog/models";
import type { TokenPrice } from "../pricing/cost";
import { cappedListingPrice } from "../pricing/price-cap";
import type { Candidate } from "../providers/candidate";
import { dispatchHttp } from "../providers/http-dispatch";
import { relayEarningsLastDay } from "../relays/daily-earnings";
import { relayEncryptionKey } from "../relays/relay-encryption-key";
import { openRelayKey } from "../relays/relay-keys";
import { isRelayUpstreamKind, relayUpstreamTarget } from "../relays/relay-upstream";
import { loadRoutableListings, type RoutableListing } from "../relays/routable-listings";
import type { RoutingServices } from "./routing-state";

/**
 * Key-relay candidates for a model: enabled listings on active hosts, within the centralized
 * cap, whose daily cap is not reached. Relays need no live connection or capacity check; the
 * key is decrypted only when a request is actually sent to it.
 */
export async function relayCandidates(
  app: RoutingServices,
  model: CatalogModel,
  cap: TokenPrice | undefined,
): Promise<Candidate[]> {
  if (!app.env.POD_ENCRYPTION_KEY) return [];
  const listings = (await loadRoutableListings(app.database.db, model.id)).filter((listing) =>
    isRelayUpstreamKind(listing.upstream),
  );
  const capped = listings
    .filter((listing) => listing.dailyCapMicrounits !== null)
    .map((listing) => listing.hostId);
  const earnings = await relayEarningsLastDay(app.database.db, capped, model.id);
  const candidates: Candidate[] = [];
  for (const listing of listings) {
    const price = cappedListingPrice(listing, cap);
    if (!price || app.routing.reputation.standing(listing.hostId) === "excluded") continue;
    if (
      listing.dailyCapMicrounits !== null &&
      (earnings.get(listing.hostId) ?? 0n) >= listing.dailyCapMicrounits
    )
      continue;
    const candidate = relayCandidate(app, listing, price);
    if (candidate) candidates.push(candidate);
  }
  return candidates;
}

function relayCandidate(
  app: RoutingServices,
  listing: RoutableListing,
  price: TokenPrice,
): Candidate | undefined {
  if (!isRelayUpstreamKind(listing.upstream)) return undefined;
  const target = relayUpstreamTarget(app.env, listing.upstream);
  return {
    route: "key-relay",
    providerId: listing.hostId,
    dialect: target.dialect,
    upstreamModelId: listing.upstreamModelId,
    price,
    enrolledAt: listing.enrolledAt,
    dispatch: (body, options) => {
      const apiKey = openRelayKey(relayEncryptionKey(app.env), listing.relayKeyId, listing.ciphertext);
      return dispatchHttp({ ...target, apiKey }, body, options);
    },
  };
}
