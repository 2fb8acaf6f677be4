import type { Database } from "../db/client";
import { postgresErrorCode } from "../db/postgres-error-code";
import { log } from "../log";
import { type LeaseSettlement, type SettleBatchResult, settleBatch } from "./settle-batch";
import { settleInference } from "./settle-inference";

type OnWritten = (settlements: LeaseSettlement[], result: SettleBatchResult) => void;

const nothingDrawn = (): SettleBatchResult => ({
  applied: new Set(),
  leasesDrawn: new Map(),
  available: new Map(),
});

/** A balance constraint refused the write (check_violation), as opposed to the database being unreachable. */
const isCheckViolation = (error: unknown) => postgresErrorCode(error) === "23514";

/**
 * A settlement its lease can no longer cover (the lease was released under it, say after a
 * crash): charged to the free balance like a settlement without a hold, any rest to the loss
 * account. False when it could not be written at all.
 */
async function settleWithoutLease(database: Database, settlement: LeaseSettlement): Promise<boolean> {
  try {
    await settleInference(database, {
      holdId: `${settlement.leaseId}:gone`,
      accountId: settlement.accountId,
      cost: settlement.cost,
      chargeBeyondHold: true,
      treasuryAccountId: settlement.treasuryAccountId,
      lossAccountId: settlement.lossAccountId,
      ...(settlement.providerAccountId === undefined
        ? {}
        : { providerAccountId: settlement.providerAccountId }),
      providerSharePercent: settlement.providerSharePercent,
      idempotencyKey: `inference:${settlement.requestId}`,
      metadata: settlement.metadata,
      usageRecord: { requestId: settlement.requestId, ...settlement.usageRecord },
    });
  } catch (error) {
    log.error("settlement not written yet; retrying", { requestId: settlement.requestId, error });
    return false;
  }
  log.warn("a settlement its lease no longer covered was charged to the free balance", {
    requestId: settlement.requestId,
  });
  return true;
}

async function writeOne(
  database: Database,
  settlement: LeaseSettlement,
  onWritten: OnWritten,
): Promise<boolean> {
  try {
    onWritten([settlement], await settleBatch(database, [settlement]));
    return true;
  } catch (error) {
    if (!isCheckViolation(error)) {
      log.error("settlement not written yet; retrying", { requestId: settlement.requestId, error });
      return false;
    }
  }
  if (!(await settleWithoutLease(database, settlement))) return false;
  onWritten([settlement], nothingDrawn());
  return true;
}

/**
 * Writes settlements in one statement. If that fails, one at a time, so one settlement its
 * lease cannot cover does not hold up the rest. Returns what is not written yet (the
 * database is unreachable), in order, for the caller to retry.
 */
export async function writeSettlements(
  database: Database,
  batch: LeaseSettlement[],
  onWritten: OnWritten,
): Promise<LeaseSettlement[]> {
  try {
    onWritten(batch, await settleBatch(database, batch));
    return [];
  } catch {
    for (const [index, settlement] of batch.entries())
      if (!(await writeOne(database, settlement, onWritten))) return batch.slice(index);
    return [];
  }
}
