import type { LedgerServices } from "../ledger/ledger-services";
import { log } from "../log";
import type { Usage } from "../pricing/cost";
import type { Services } from "../services";
import { leaseSettlementOf, type SettleRequestInput } from "./settle-request";

/** How often a stream's running count is journaled while it relays. */
const everyMs = 1_000;

/** A stream's usage so far, measured as its settlement would meter it (the tokenizer's counts). */
type MeasureRunningUsage = () => Promise<{ usage: Usage; excess: Usage }>;

export interface RunningCount {
  /**
   * Content flowed: the usage so far is measured and journaled at most once a second, and
   * again a second after the last flow (a stream that goes quiet is journaled with all it relayed).
   */
  progress(measure: MeasureRunningUsage): void;
  /**
   * The stream ended: a count still waiting for its second is journaled now, and none after.
   * Counts already on their way are journaled too: until the final settlement is durable, the
   * last count is what a crash would bill (a final row is never replaced by one).
   */
  ended(): void;
  /** The stream was settled: a hold row's running counts are void now (a lease's final settlement replaces them). */
  settled(): void;
}

/**
 * For a stream: journals its usage so far (at most once a second, and once more a second after
 * content stops) as its running count, measured by the meter that bills a stream that ends: the
 * tokenizer's counts of the prompt sent and the content relayed, or a trusted source's claim. If
 * the process dies mid-stream, whoever replays its journal bills that count, capped at the
 * hold, instead of nothing, and the same figures live metering would have billed. A lease's
 * count is charged out of the lease; a hold row's (x402 payments,
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
  // A stream shorter than a second journals nothing: its final settlement is the first record of it.
  let last = Date.now();
  let counted = false;
  let journaled = false;
  let ended = false;
  /** The latest measure not journaled yet, and the timer that journals it a second after the last one. */
  let latest: MeasureRunningUsage | undefined;
  let trailing: NodeJS.Timeout | undefined;
  /** The count being prepared: `settled` waits for it, or it could be journaled after. */
  let pending: Promise<void> = Promise.resolve();
  const journal = () => {
    const measure = latest;
    latest = undefined;
    if (!measure) return;
    last = Date.now();
    counted = true;
    pending = pending
      .then(async () => {
        const measured = await measure();
        const settlement = await leaseSettlementOf(app, {
          ...input,
          ...measured,
          outcome: "interrupted",
        });
        if (hold.kind === "lease") return leases?.progress(settlement, hold.amount);
        journaled = true;
        app.journal.progress({
          ...settlement,
          leaseId: hold.id,
          charged: settlement.cost < hold.amount ? settlement.cost : hold.amount,
        });
      })
      .catch((error: unknown) => log.warn("journaling a stream's running count failed", { error }));
  };
  return {
    progress(measure) {
      if (ended) return;
      latest = measure;
      const wait = last + everyMs - Date.now();
      if (wait <= 0) {
        clearTimeout(trailing);
        trailing = undefined;
        journal();
      } else
        trailing ??= setTimeout(() => {
          trailing = undefined;
          journal();
        }, wait);
    },
    ended() {
      ended = true;
      clearTimeout(trailing);
      trailing = undefined;
      // Only a stream with a count on record has one to bring up to date.
      if (counted) journal();
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
