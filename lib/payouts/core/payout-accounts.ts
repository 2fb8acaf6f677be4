import type { Executor } from "../../db/client";
import { ensureAccount } from "../../ledger/accounts";

/**
 * Money on its way to a host: it leaves the host's account when a payout is requested and
 * sits here until the chain confirms the transfer (then it goes out) or proves it can never
 * land (then it goes back). Not `external`, so it can never go negative.
 */
const payoutsInFlight = { kind: "payout", ref: "in-flight" } as const;
/** The outside world the payout wallet pays into. */
const solanaPayouts = { kind: "external", ref: "solana-payouts" } as const;

export async function payoutAccountIds(executor: Executor, hostId: string) {
  const [provider, inFlight, external, bond] = await Promise.all([
    ensureAccount(executor, "provider", hostId),
    ensureAccount(executor, payoutsInFlight.kind, payoutsInFlight.ref),
    ensureAccount(executor, solanaPayouts.kind, solanaPayouts.ref),
    ensureAccount(executor, "bond", hostId),
  ]);
  return { provider, inFlight, external, bond };
}
