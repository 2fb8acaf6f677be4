import type { AppContext } from "./app-context";
import { finishRetirements, returnDueBonds } from "./hosts/retire-host";
import { releaseExpiredHolds } from "./ledger/holds";
import { log } from "./log";
import { runPayouts } from "./payouts/payout-worker";
import { configuredRails } from "./x402/rails/payment-rails";
import { scheduleReconciliation } from "./x402/reconcile-claims";

/**
 * Periodic upkeep every gateway process runs: release holds a crashed process left behind,
 * finish x402 co-signed payments left pending even when no quote traffic arrives, retire
 * drained hosts, return bonds after their cooldown and pay host withdrawals.
 */
export async function runMaintenance(app: AppContext): Promise<void> {
  const released = (await app.holds.releaseDeadInstances()) + (await releaseExpiredHolds(app.database.db));
  if (released > 0) log.warn("released expired holds", { released });
  const rails = configuredRails(app);
  if (rails.length > 0) scheduleReconciliation(app, rails);
  // Host supply: finish retirements whose jobs drained, queue bonds past their cooldown, pay out.
  await finishRetirements(app);
  await returnDueBonds(app);
  await runPayouts(app);
}

/** Starts the upkeep loop; the timer never keeps the process alive on its own. */
export function startMaintenance(app: AppContext, intervalMs = 60_000): () => void {
  const timer = setInterval(() => {
    runMaintenance(app).catch((error: unknown) => log.error("maintenance failed", { error }));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
