import type { LedgerServices } from "../ledger/ledger-services";
import { log } from "../log";
import type { Usage } from "../pricing/cost";
import type { Services } from "../services";
import { leaseSettlementOf, type SettleRequestInput } from "./settle-request";

/** How often a stream's running count is journaled while it relays. */
const everyMs = 1_000;

export interface RunningCount {
  /** The usage so far, as content flows: journaled at most once a second. */
  progress(usage: Usage): void;
  /** The stream was settled: a hold row's running counts are void now (a lease's final settlement replaces them). */
  settled(): void;
}

/**
 * For a stream: journals its usage so far (at most once a second) as its running count. If the
 * process dies mid-stream, whoever replays its journal bills that count, capped at the hold,
 * instead of nothing. A lease's count is charged out of the lease; a hold row's (x402 payments,
 * prepaid tokens with BALANCE_LEASE=off) out of that row, and the dead instance's holds are
 * released only after the replay: an x402 payer pays what was relayed and keeps the rest of
 * the payment as wallet credit, as for any unserved value.
 */
export function runningCountJournal(
  app: Pick<Services, "database"> & LedgerServices,
  input: Omit<SettleRequestInput, "usage" | "outcome">,
): RunningCount | undefined {
  const { hold } = input;
  if (hold.kind === "lease" && !app.leases) return undefined;
  const leases = app.leases;
  let last = Date.now();
  let journaled = false;
  /** The count being prepared: `settled` waits for it, or it could be journaled after. */
  let pending: Promise<void> = Promise.resolve();
  return {
    progress(usage) {
      const now = Date.now();
      if (now - last < everyMs) return;
      last = now;
      pending = leaseSettlementOf(app, { ...input, usage, outcome: "interrupted" })
        .then((settlement) => {
          if (hold.kind === "lease") return leases?.progress(settlement, hold.amount);
          journaled = true;
          app.journal.progress({
            ...settlement,
            leaseId: hold.id,
            charged: settlement.cost < hold.amount ? settlement.cost : hold.amount,
          });
        })
        .catch((error: unknown) => log.warn("journaling a stream's running count failed", { error }));
    },
    settled() {
      if (hold.kind !== "row") return;
      pending
        .then(() => {
          if (journaled) app.journal.settledDirectly(input.requestId);
        })
        .catch(() => undefined);
    },
  };
}
