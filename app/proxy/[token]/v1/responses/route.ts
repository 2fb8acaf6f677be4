// POST /proxy/<token>/v1/responses – OpenAI Responses API (stateless) on a prepaid token
import { nextRoute } from "@/lib/http/next-route";
import { handleTokenInference } from "@/lib/proxy/handle-token-inference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute(
  (app, request, [token = ""]) => handleTokenInference(app, request, token, "responses"),
  ["token"],
);
