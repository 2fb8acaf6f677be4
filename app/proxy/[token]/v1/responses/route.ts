// POST /proxy/<token>/v1/responses – OpenAI Responses API (stateless) on a prepaid token
import { nextRoute } from "@/lib/http/next-route";
import { handleResponses } from "@/lib/responses/handle-responses";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute(
  (app, request, [token = ""]) => handleResponses(app, request, token),
  ["token"],
);
