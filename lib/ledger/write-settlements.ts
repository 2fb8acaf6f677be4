import type { Database } from "../db/client";
import { postgresErrorCode } from "../db/postgres-error-code";
import { log } from "../log";
import { forgetSettled } from "./database-journal";
import { quarantineSettlement } from "./quarantine-settlement";
import { type LeaseSettlement, type SettleBatchResult, settleBatch } from "./settle-batch";
import { settleInference } from "./settle-inference";

type OnWritten = (settlements: LeaseSettlement[], result: SettleBatchResult) => void;

export interface WriteSettlementsResult {
  /** Not written because the database could not be reached: retry them, in this order. */
  left: LeaseSettlement[];
  /** Refused by the database and booked through the quarantine instead. */
  quarantined: number;
}

const nothingDrawn = (): SettleBatchResult => ({
  applied: 0,
  leasesDrawn: new Map(),
  available: new Map(),
});

/** A balance constraint refused the write (check_violation): the lease no longer covers it. */
const isCheckViolation = (error: unknown) => postgresErrorCode(error) === "23514";

/**
 * The database answered and refused this statement for what it contains (a data exception, a
 * constraint, a trigger's exception): running it again gives the same answer. Connection
 * failures, shutdowns, resource limits, lock timeouts and serialization failures are
 * transient: those settlements wait and are retried.
 */
function isRefusal(error: unknown): boolean {
  const code = postgresErrorCode(error);
  if (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return !["08", "40", "53", "55", "57", "58", "XX"].includes(code.slice(0, 2));
}

const reasonOf = (error: unknown) =>
  `${postgresErrorCode(error) ?? "error"}: ${error instanceof Error ? error.message : String(error)}`.slice(
    0,
    500,
  );

/**
 * A settlement its lease can no longer cover (the lease was released under it, say after a
 * crash): charged to the free balance like a settlement without a hold, but only what its hold
 * covered when it settled (`charged`, never its whole cost: the hold was the promise, and a
 * replay must not turn a shortfall into a charge); any rest to the loss account.
 */
async function settleWithoutLease(database: Database, settlement: LeaseSettlement): Promise<void> {
  await settleInference(database, {
    // No hold has this id: the free balance pays, up to `chargeLimit`.
    holdId: `${settlement.leaseId}:gone`,
    accountId: settlement.accountId,
    cost: settlement.cost,
    chargeBeyondHold: false,
    chargeLimit: settlement.charged,
    treasuryAccountId: settlement.treasuryAccountId,
    lossAccountId: settlement.lossAccountId,
    ...(settlement.providerAccountId === undefined
      ? {}
      : { providerAccountId: settlement.providerAccountId }),
    providerSharePercent: settlement.providerSharePercent,
    ...(settlement.upstreamExcess === undefined ? {} : { upstreamExcess: settlement.upstreamExcess }),
    idempotencyKey: `inference:${settlement.requestId}`,
    metadata: settlement.metadata,
    usageRecord: { requestId: settlement.requestId, ...settlement.usageRecord },
  });
  // Written in a statement of its own, which stores no receipt.
  settlement.receipt?.close();
  log.warn("a settlement its lease no longer covered was charged to the free balance", {
    requestId: settlement.requestId,
  });
}

type OneResult = "written" | "quarantined" | "unreachable";

/** Written without `settleBatch`, which would have deleted its journal row in the same statement. */
function forgetJournalRow(database: Database, requestId: string): Promise<void> {
  return forgetSettled(database, [requestId]).catch((error: unknown) =>
    log.warn("clearing a settled request's journal row failed (replay skips it)", { requestId, error }),
  );
}

async function writeOne(
  database: Database,
  settlement: LeaseSettlement,
  onWritten: OnWritten,
): Promise<OneResult> {
  let refusal: unknown;
  try {
    onWritten([settlement], await settleBatch(database, [settlement]));
    return "written";
  } catch (error) {
    if (!isRefusal(error)) {
      log.error("settlement not written yet; retrying", { requestId: settlement.requestId, error });
      return "unreachable";
    }
    refusal = error;
  }
  if (isCheckViolation(refusal)) {
    try {
      await settleWithoutLease(database, settlement);
      await forgetJournalRow(database, settlement.requestId);
      onWritten([settlement], nothingDrawn());
      return "written";
    } catch (error) {
      if (!isRefusal(error)) return "unreachable";
      refusal = error;
    }
  }
  try {
    const drawn = await quarantineSettlement(database, settlement, reasonOf(refusal));
    // A quarantine's statements store no receipt.
    settlement.receipt?.close();
    await forgetJournalRow(database, settlement.requestId);
    onWritten([settlement], { ...nothingDrawn(), leasesDrawn: drawn });
    return "quarantined";
  } catch (error) {
    log.error("a refused settlement could not be quarantined yet; retrying", {
      requestId: settlement.requestId,
      error,
    });
    return "unreachable";
  }
}

/**
 * Writes settlements in one statement. If that fails, one at a time: one settlement its lease
 * cannot cover is charged to the free balance, and one the database refuses outright is
 * quarantined, so neither holds up the rest. Only when the database cannot be reached are
 * settlements left, in order, for the caller to retry.
 */
export async function writeSettlements(
  database: Database,
  batch: LeaseSettlement[],
  onWritten: OnWritten,
): Promise<WriteSettlementsResult> {
  try {
    onWritten(batch, await settleBatch(database, batch));
    return { left: [], quarantined: 0 };
  } catch {
    let quarantined = 0;
    for (const [index, settlement] of batch.entries()) {
      const result = await writeOne(database, settlement, onWritten);
      if (result === "unreachable") return { left: leftWithoutReceipts(batch.slice(index)), quarantined };
      if (result === "quarantined") quarantined += 1;
    }
    return { left: [], quarantined };
  }
}

/**
 * Settlements the ledger cannot take now wait to be retried (and are journaled meanwhile); their
 * receipts do not wait with them, in memory only: they are stored on their own, as they were
 * before they rode with the batch, so a crash before the ledger is back loses no stored copy the
 * receipts' own table could have taken.
 */
function leftWithoutReceipts(left: LeaseSettlement[]): LeaseSettlement[] {
  for (const settlement of left) settlement.receipt?.close();
  return left;
}
