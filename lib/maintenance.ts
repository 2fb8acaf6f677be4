import type { AppContext } from "./app-context";
import { releaseExpiredHolds } from "./ledger/holds";
import { log } from "./log";
import { scheduleReconciliation } from "./x402/reconcile-claims";
import { x402ServicesOf } from "./x402/x402-services";

/**
 * Periodic upkeep every gateway process runs: release holds a crashed process left behind,
 * and finish x402 co-signed payments left pending even when no quote traffic arrives.
 */
export async function runMaintenance(app: AppContext): Promise<void> {
  const released = await releaseExpiredHolds(app.database.db);
  if (released > 0) log.warn("released expired holds", { released });
  if (app.env.X402_PAY_TO) scheduleReconciliation(app, await x402ServicesOf(app));
}

/** Starts the upkeep loop; the timer never keeps the process alive on its own. */
export function startMaintenance(app: AppContext, intervalMs = 60_000): () => void {
  const timer = setInterval(() => {
    runMaintenance(app).catch((error: unknown) => log.error("maintenance failed", { error }));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
