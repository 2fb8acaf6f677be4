// POST /v1/host/withdraw – queue a USDC payout of earnings (Idempotency-Key required)
import { handleHostWithdraw } from "@/lib/handlers/host-earnings";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request) => handleHostWithdraw(app, request));
