import type { HostPayout } from "../../db/schema";

/** A payout as the host earnings and admin routes show it. */
export function payoutView(payout: HostPayout) {
  return {
    id: payout.id,
    kind: payout.kind,
    amount_microunits: Number(payout.amount),
    destination: payout.destination,
    status: payout.status,
    signature: payout.signature,
    created_at: payout.createdAt.toISOString(),
    confirmed_at: payout.confirmedAt?.toISOString() ?? null,
    error: payout.error,
  };
}
