import type { AppContext } from "../app-context";
import { GatewayError } from "../errors/gateway-error";
import { clientIp } from "../http/client-ip";
import { errorResponse, jsonResponse } from "../http/responses";
import { registerToken } from "../tokens/register-token";
import { publicBaseUrl } from "./public-urls";

/** POST /v1/register – mint a prepaid token and its deposit code. */
export async function handleRegister(app: AppContext, request: Request): Promise<Response> {
  try {
    const limit = await app.registerLimiter.hit(`register:${clientIp(request)}`);
    if (!limit.allowed) {
      throw new GatewayError("rate_limited", "rate limited: at most 10 registrations per minute per client", {
        headers: { "retry-after": String(limit.retryAfterSeconds) },
        details: { retry_after_seconds: limit.retryAfterSeconds },
      });
    }
    const { token, depositCode } = await registerToken(app.database.db);
    const base = publicBaseUrl(app, request);
    const depositAddress = app.env.SOLANA_DEPOSIT_ADDRESS ?? app.env.SOLANA_PROGRAM_ADDRESS;
    const dashboardBase = app.env.DASHBOARD_URL ?? `${base}/dashboard`;
    return jsonResponse(
      {
        api_token: token,
        deposit_code: depositCode,
        deposit_address: depositAddress,
        status: "pending_deposit",
        proxy_base_url_openai: `${base}/proxy/${token}/v1`,
        proxy_base_url_anthropic: `${base}/proxy/${token}`,
        instructions: {
          contract_address: app.env.SOLANA_PROGRAM_ADDRESS,
          deposit_address: depositAddress,
          dashboard_url: `${dashboardBase.replace(/\/+$/, "")}/${token}`,
        },
      },
      200,
      { "cache-control": "no-store" },
    );
  } catch (error) {
    return errorResponse("openai", error);
  }
}
