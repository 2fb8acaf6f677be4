import { type CatalogRefreshServices, refreshCatalog } from "./catalog/refresh-catalog";
import { scanDeposits } from "./deposits/solana/deposit-watcher";
import { finishRetirements, returnDueBonds } from "./hosts/retire-host";
import { releaseExpiredHolds } from "./ledger/holds";
import type { LedgerServices } from "./ledger/ledger-services";
import { collectOpenReceivables } from "./ledger/receivables";
import { log } from "./log";
import { AgentAbsence } from "./operator-console/agent-absence";
import { type NoticeState, runOperatorNotices } from "./operator-console/operator-notices";
import { type PayoutRail, runPayouts } from "./payouts/core/run-payouts";
import { sweepExpiredResponses } from "./responses/stored-responses";
import type { RoutingState } from "./routing/routing-state";
import { upkeepTrust } from "./trust/note-trust-events";
import type { X402Wiring } from "./x402/x402-wiring";

/** What the upkeep passes read: every feature that has background work, and nothing of the API. */
export interface MaintenanceServices extends CatalogRefreshServices, LedgerServices {
  routing: RoutingState;
  x402: Pick<X402Wiring, "rails" | "scheduleReconciliation">;
  payoutRail(): Promise<PayoutRail | undefined>;
}

/**
 * Periodic upkeep every gateway process runs: release holds a crashed process left behind,
 * finish x402 co-signed payments left pending even when no quote traffic arrives, re-read host
 * standings and slash hosts proven to cheat, retire drained hosts, return bonds after their
 * cooldown and pay host withdrawals.
 */
export async function runMaintenance(app: MaintenanceServices): Promise<void> {
  const released = (await app.holds.releaseDeadInstances()) + (await releaseExpiredHolds(app.database.db));
  if (released > 0) log.warn("released expired holds", { released });
  // What came back to owing accounts (holds released, leases returned elsewhere) pays their receivables.
  const collected = await collectOpenReceivables(app.database.db);
  if (collected > 0n) log.info("collected receivables", { microunits: collected.toString() });
  if (app.x402.rails().length > 0) app.x402.scheduleReconciliation();
  // Host standing as the trust record says, agreed across replicas within a pass; proven cheats slashed.
  await upkeepTrust(app);
  // Host supply: finish retirements whose jobs drained, queue bonds past their cooldown, pay out.
  await finishRetirements(app);
  await returnDueBonds(app);
  await runPayouts(app);
  await sweepExpiredResponses(app.database.db);
}

/**
 * The on-chain deposit watcher's pass (`lib/deposits/solana/deposit-watcher.ts`): credits new USDC
 * deposits, bonds and parks the rest. It takes a database lease, so with several replicas one
 * of them scans at a time; with deposits off (no SOLANA_DEPOSIT_ADDRESS) it does nothing.
 */
async function runDepositWatch(app: MaintenanceServices): Promise<void> {
  const result = await scanDeposits(app);
  if (result.waiting > 0) log.info("deposits waiting for commitment", { waiting: result.waiting });
}

/**
 * Starts the upkeep loop, the catalog price refresh every CATALOG_REFRESH_MINUTES, the
 * operator's notices, and the deposit watcher every SOLANA_DEPOSIT_POLL_SECONDS when deposits are on; a pass never starts while the previous one runs. The timers never keep the
 * process alive on their own.
 */
export function startMaintenance(app: MaintenanceServices, intervalMs = 60_000): () => void {
  const timer = setInterval(() => {
    runMaintenance(app).catch((error: unknown) => log.error("maintenance failed", { error }));
  }, intervalMs);
  timer.unref();
  let watching = false;
  const depositTimer = app.env.SOLANA_DEPOSIT_ADDRESS
    ? setInterval(() => {
        if (watching) return;
        watching = true;
        runDepositWatch(app)
          .catch((error: unknown) => log.error("deposit watch failed", { error }))
          .finally(() => {
            watching = false;
          });
      }, app.env.SOLANA_DEPOSIT_POLL_SECONDS * 1000)
    : undefined;
  depositTimer?.unref();
  const refreshMinutes = app.env.CATALOG_REFRESH_MINUTES;
  const refreshTimer =
    refreshMinutes > 0
      ? setInterval(() => {
          refreshCatalog(app, "scheduled-refresh").catch((error: unknown) =>
            log.error("catalog refresh failed", { error }),
          );
        }, refreshMinutes * 60_000)
      : undefined;
  refreshTimer?.unref();
  // The operator's notices (lib/operator-console/operator-notices.ts): every 30 s, so an agent
  // away or a payout waiting is told within half a minute of its threshold.
  const notices: NoticeState = { absence: new AgentAbsence() };
  let noticing = false;
  const noticeTimer = setInterval(() => {
    if (noticing) return;
    noticing = true;
    runOperatorNotices(app, notices, { holder: app.holds.instanceId })
      .catch((error: unknown) => log.error("operator notices failed", { error }))
      .finally(() => {
        noticing = false;
      });
  }, 30_000);
  noticeTimer.unref();
  return () => {
    clearInterval(timer);
    clearInterval(noticeTimer);
    if (depositTimer) clearInterval(depositTimer);
    if (refreshTimer) clearInterval(refreshTimer);
  };
}
