// GET /proxy/<token>/transactions – credits and debits of a token, newest first
import { handleTransactions } from "@/lib/handlers/transactions";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute(
  (app, request, [token = ""]) => handleTransactions(app, request, token),
  ["token"],
);
