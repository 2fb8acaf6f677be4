import type { HostPayout } from "@pod-gateway/contracts/host-api";
import { solanaExplorerTxUrl } from "../../chains/solana/explorer-url";
import type { HostPayout as HostPayoutRow } from "../../db/schema";
import type { Env } from "../../env";

/** A payout as the host earnings and admin routes show it, with its transaction's explorer page once sent. */
export function payoutView(env: Pick<Env, "SOLANA_NETWORK">, payout: HostPayoutRow): HostPayout {
  return {
    id: payout.id,
    kind: payout.kind,
    amount_microunits: Number(payout.amount),
    destination: payout.destination,
    status: payout.status,
    signature: payout.signature,
    explorer_url: payout.signature ? solanaExplorerTxUrl(env.SOLANA_NETWORK, payout.signature) : null,
    created_at: payout.createdAt.toISOString(),
    confirmed_at: payout.confirmedAt?.toISOString() ?? null,
    error: payout.error,
  };
}
