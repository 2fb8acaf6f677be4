// GET /proxy/<token>/balance – the token's balance in microunits
import { handleBalance } from "@/lib/handlers/balance";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request, [token = ""]) => handleBalance(app, request, token), ["token"]);
