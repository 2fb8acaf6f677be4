import type { AppContext } from "../app-context";
import { log } from "../log";
import type { Usage } from "../pricing/cost";
import { leaseSettlementOf, type SettleRequestInput } from "./settle-request";

/** How often a stream's running count is journaled while it relays. */
const everyMs = 1_000;

/**
 * For a prepaid stream held against a lease: a callback the relay calls with the usage so far
 * as content flows, journaling it (at most once a second) as the stream's running count. If
 * the process dies mid-stream, whoever replays its journal bills that count (capped at the
 * hold) instead of nothing. Undefined where there is nothing to journal (row holds, x402).
 */
export function runningCountJournal(
  app: AppContext,
  input: Omit<SettleRequestInput, "usage" | "outcome">,
): ((usage: Usage) => void) | undefined {
  const { hold } = input;
  if (hold.kind !== "lease" || !app.leases) return undefined;
  const leases = app.leases;
  let last = Date.now();
  return (usage) => {
    const now = Date.now();
    if (now - last < everyMs) return;
    last = now;
    leaseSettlementOf(app, { ...input, usage, outcome: "interrupted" })
      .then((settlement) => leases.progress(settlement, hold.amount))
      .catch((error: unknown) => log.warn("journaling a stream's running count failed", { error }));
  };
}
