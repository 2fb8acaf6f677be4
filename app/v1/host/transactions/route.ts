// GET /v1/host/transactions – the host's credits and withdrawals, newest first
import { handleHostTransactions } from "@/lib/handlers/host-earnings";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request) => handleHostTransactions(app, request));
