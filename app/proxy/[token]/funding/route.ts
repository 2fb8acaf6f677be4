// GET /proxy/<token>/funding – the ways this token can be funded (card, Solana USDC)
import { handleFundingOptions } from "@/lib/handlers/funding-options";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute(
  (app, request, [token = ""]) => handleFundingOptions(app, request, token),
  ["token"],
);
