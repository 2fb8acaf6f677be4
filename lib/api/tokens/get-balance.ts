import type { TokenBalance } from "@pod-gateway/contracts/dashboard-api";
import { jsonResponse } from "../../http/responses";
import { findToken } from "../../tokens/find-token";
import { readTokenBalance } from "../../tokens/token-balance";
import type { ApiCall } from "../route-definition";

/** GET /proxy/<token>/balance – the token's balance in integer microunits. */
export async function getBalance({ app, params, principal }: ApiCall<"token">): Promise<Response> {
  const balance = await readTokenBalance(app, principal.accountId);
  // The authenticated record is cached; activation is read fresh.
  const activatedAt = (await findToken(app.database.db, params.token ?? ""))?.activatedAt ?? null;
  const body: TokenBalance = {
    api_token: params.token ?? "",
    // Available balance: what in-flight requests do not reserve, net of what the token owes.
    usdc_balance: Number(balance.available),
    credit_balance: 0,
    deposit_code: principal.depositCode,
    is_active: activatedAt !== null && balance.balance > 0n,
    held_balance: Number(balance.held),
    owed_balance: Number(balance.owed),
  };
  return jsonResponse(body, 200, { "cache-control": "no-store" });
}
