import { jsonResponse } from "../../http/responses";
import { hostEarnings, hostPayoutList } from "../../payouts/host-earnings";
import type { ApiCall } from "../route-definition";
import { payoutView } from "./payout-view";

/** GET /v1/host/balance – earnings not yet withdrawn, what may be withdrawn now, and open payouts. */
export async function getHostBalance({ app, principal: host }: ApiCall<"host">): Promise<Response> {
  const earnings = await hostEarnings(app.database.db, app.env, host.id);
  const payouts = await hostPayoutList(app.database.db, host.id);
  return jsonResponse(
    {
      provider_id: host.id,
      usdc_balance: Number(earnings.balance),
      withdrawable_usdc_balance: Number(earnings.withdrawable),
      pending_withdrawals_usdc: Number(earnings.pending),
      limits: {
        minimum_microunits: Number(app.env.HOST_WITHDRAW_MIN_MICROUNITS),
        daily_cap_microunits: Number(app.env.HOST_WITHDRAW_DAILY_CAP_MICROUNITS),
        review_above_microunits: Number(app.env.HOST_WITHDRAW_REVIEW_MICROUNITS),
      },
      payouts: payouts.map(payoutView),
    },
    200,
    { "cache-control": "no-store" },
  );
}
