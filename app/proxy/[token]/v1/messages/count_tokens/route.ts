// POST /proxy/<token>/v1/messages/count_tokens – Anthropic's free token counter
import { handleCountTokens } from "@/lib/handlers/count-tokens";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute(
  (app, request, [token = ""]) => handleCountTokens(app, request, token),
  ["token"],
);
