// GET /v1/marketplace/models – public catalogue: cheapest and centralized prices, marketplace supply
import { handleMarketplaceModels } from "@/lib/handlers/marketplace-models";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app) => handleMarketplaceModels(app));
