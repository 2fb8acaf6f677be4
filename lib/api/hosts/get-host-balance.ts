import type { HostBalance } from "@pod-gateway/contracts/host-api";
import { jsonResponse } from "../../http/responses";
import { hostEarnings, hostPayoutList } from "../../payouts/core/host-earnings";
import type { ApiCall } from "../route-definition";
import { payoutView } from "./payout-view";

/**
 * GET /v1/host/balance – earnings not yet withdrawn, the part still maturing, what may be
 * withdrawn now (nothing while suspended), and open payouts.
 */
export async function getHostBalance({ app, principal: host }: ApiCall<"host">): Promise<Response> {
  const earnings = await hostEarnings(app.database.db, app.env, host);
  const payouts = await hostPayoutList(app.database.db, host.id);
  return jsonResponse(
    {
      provider_id: host.id,
      usdc_balance: Number(earnings.balance),
      withdrawable_usdc_balance: Number(earnings.withdrawable),
      maturing_usdc_balance: Number(earnings.maturing),
      frozen: host.status === "suspended",
      pending_withdrawals_usdc: Number(earnings.pending),
      limits: {
        minimum_microunits: Number(app.env.HOST_WITHDRAW_MIN_MICROUNITS),
        daily_cap_microunits: Number(app.env.HOST_WITHDRAW_DAILY_CAP_MICROUNITS),
        review_above_microunits: Number(app.env.HOST_WITHDRAW_REVIEW_MICROUNITS),
        maturity_seconds: app.env.HOST_EARNINGS_MATURITY_SECONDS,
      },
      payouts: payouts.map((payout) => payoutView(app.env, payout)),
    } satisfies HostBalance,
    200,
    { "cache-control": "no-store" },
  );
}
