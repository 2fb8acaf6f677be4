// GET /proxy/<token>/usage?days=30 – balance, spend totals, spend per day and per model
import { handleUsageSummary } from "@/lib/handlers/usage-summary";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute(
  (app, request, [token = ""]) => handleUsageSummary(app, request, token),
  ["token"],
);
