import { solanaDepositSettings } from "../../deposits/solana/deposit-config";
import { GatewayError } from "../../errors/gateway-error";
import { dashboardBaseUrl } from "../../funding/dashboard-urls";
import { clientIp } from "../../http/client-ip";
import { publicBaseUrl } from "../../http/public-urls";
import { jsonResponse } from "../../http/responses";
import { registerToken as mintToken } from "../../tokens/register-token";
import type { ApiCall } from "../route-definition";

/** POST /v1/register – mint a prepaid token and its deposit code. */
export async function registerToken(call: ApiCall<"none">): Promise<Response> {
  const { app, request } = call;
  const limit = await app.registerLimiter.hit(`register:${clientIp(request)}`);
  if (!limit.allowed) {
    throw new GatewayError("rate_limited", "rate limited: at most 10 registrations per minute per client", {
      headers: { "retry-after": String(limit.retryAfterSeconds) },
      details: { retry_after_seconds: limit.retryAfterSeconds },
    });
  }
  const { token, depositCode } = await mintToken(app.database.db);
  const base = publicBaseUrl(app, request);
  const deposits = solanaDepositSettings(app.env);
  // Only an address the operator controls is ever shown; without one, say deposits are off.
  const depositAddress = deposits.enabled ? deposits.owner : null;
  const dashboardBase = dashboardBaseUrl(app.env, base);
  return jsonResponse(
    {
      api_token: token,
      deposit_code: depositCode,
      deposit_address: depositAddress,
      status: "pending_deposit",
      proxy_base_url_openai: `${base}/proxy/${token}/v1`,
      proxy_base_url_anthropic: `${base}/proxy/${token}`,
      onchain_deposits: deposits.enabled
        ? { enabled: true, usdc_mint: deposits.usdcMint, network: deposits.network, memo: depositCode }
        : { enabled: false, reason: deposits.reason },
      instructions: {
        // Clients of the reference service send here; ours is a wallet, not a program.
        contract_address: depositAddress,
        deposit_address: depositAddress,
        memo: depositCode,
        // A fragment never reaches a server or a Referer; the dashboard drops it after sign-in.
        dashboard_url: `${dashboardBase}#token=${token}`,
      },
    },
    200,
    { "cache-control": "no-store" },
  );
}
