// GET /proxy/x402/balance/<wallet> – the x402 surplus credit of a payer wallet
import { handleX402WalletBalance } from "@/lib/handlers/x402-wallet-balance";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute(
  (app, request, [wallet = ""]) => handleX402WalletBalance(app, request, wallet),
  ["wallet"],
);
