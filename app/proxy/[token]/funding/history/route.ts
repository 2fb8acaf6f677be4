// GET /proxy/<token>/funding/history – card payments, deposits and receivables
import { handleFundingHistory } from "@/lib/handlers/funding-history";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute(
  (app, request, [token = ""]) => handleFundingHistory(app, request, token),
  ["token"],
);
