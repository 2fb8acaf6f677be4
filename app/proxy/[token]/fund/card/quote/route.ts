// GET /proxy/<token>/fund/card/quote?amount_usd=20 – the card fee and total before paying
import { handleCardQuote } from "@/lib/handlers/fund-card";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request, [token = ""]) => handleCardQuote(app, request, token), ["token"]);
