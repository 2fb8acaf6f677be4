// GET /proxy/<token>/fund/card/<session_id> – whether a card payment has been credited
import { handleCardSessionStatus } from "@/lib/handlers/fund-card";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute(
  (app, request, [token = "", session = ""]) => handleCardSessionStatus(app, request, token, session),
  ["token", "session"],
);
