import type { AppContext } from "./app-context";
import { releaseExpiredHolds } from "./ledger/holds";
import { log } from "./log";
import { configuredRails } from "./x402/rails/payment-rails";
import { scheduleReconciliation } from "./x402/reconcile-claims";

/**
 * Periodic upkeep every gateway process runs: release holds a crashed process left behind,
 * and finish x402 co-signed payments left pending even when no quote traffic arrives.
 */
export async function runMaintenance(app: AppContext): Promise<void> {
  const released = await releaseExpiredHolds(app.database.db);
  if (released > 0) log.warn("released expired holds", { released });
  const rails = configuredRails(app);
  if (rails.length > 0) scheduleReconciliation(app, rails);
}

/** Starts the upkeep loop; the timer never keeps the process alive on its own. */
export function startMaintenance(app: AppContext, intervalMs = 60_000): () => void {
  const timer = setInterval(() => {
    runMaintenance(app).catch((error: unknown) => log.error("maintenance failed", { error }));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
