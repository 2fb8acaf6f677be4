import type { AppContext } from "../app-context";
import { GatewayError } from "../errors/gateway-error";
import { errorResponse, jsonResponse } from "../http/responses";
import { isUuid } from "../ids";
import { getAccountBalance } from "../ledger/accounts";
import { findToken } from "../tokens/find-token";

/** GET /proxy/<token>/balance – the token's balance in integer microunits. */
export async function handleBalance(app: AppContext, _request: Request, token: string): Promise<Response> {
  try {
    const record = isUuid(token) ? await findToken(app.database.db, token) : undefined;
    if (!record) throw new GatewayError("not_found", "token not found");
    const balance = await getAccountBalance(app.database.db, record.accountId);
    return jsonResponse(
      {
        api_token: token,
        // Available balance: what is not reserved by in-flight requests.
        usdc_balance: Number(balance.available),
        credit_balance: 0,
        deposit_code: record.depositCode,
        is_active: record.activatedAt !== null && balance.balance > 0n,
        held_balance: Number(balance.held),
      },
      200,
      { "cache-control": "no-store" },
    );
  } catch (error) {
    return errorResponse("openai", error);
  }
}
