// DELETE /v1/host/listings/<model> – remove the host's listing for a model
import { handleDeleteListing } from "@/lib/handlers/host-listings";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const DELETE = nextRoute(
  (app, request, [model = ""]) => handleDeleteListing(app, request, model),
  ["model"],
);
