// GET, PUT /v1/host/listings – list or upsert the host's key-relay listings
import { handleListListings, handlePutListing } from "@/lib/handlers/host-listings";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request) => handleListListings(app, request));
export const PUT = nextRoute((app, request) => handlePutListing(app, request));
