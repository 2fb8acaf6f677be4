// GET /v1/providers – active providers with their models and prices
import { handleProviders } from "@/lib/handlers/providers";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app) => handleProviders(app));
