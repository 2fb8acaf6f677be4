// GET /v1/host/balance – earnings, what can be withdrawn now, open payouts
import { handleHostBalance } from "@/lib/handlers/host-earnings";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request) => handleHostBalance(app, request));
