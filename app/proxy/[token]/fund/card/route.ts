// POST /proxy/<token>/fund/card – a Stripe Checkout Session for a card top-up
import { handleFundCard } from "@/lib/handlers/fund-card";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request, [token = ""]) => handleFundCard(app, request, token), ["token"]);
