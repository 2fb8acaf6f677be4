import type { HostListings } from "@pod-gateway/contracts/host-api";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";
import { listingViews } from "./listing-view";

/** GET /v1/host/listings – the host's relay listings with their cap and daily-cap state. */
export async function listListings({ app, principal: host }: ApiCall<"host">): Promise<Response> {
  const listings: HostListings = { listings: await listingViews(app, host.id) };
  return jsonResponse(listings, 200, { "cache-control": "no-store" });
}
