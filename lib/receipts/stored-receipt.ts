import { sql } from "drizzle-orm";
import { type Executor, queryRows } from "../db/client";
import type { LedgerServices } from "../ledger/ledger-services";
import type { ReceiptServices } from "./receipt-services";

/**
 * A request's stored receipt, or undefined: with its usage record, or in usage_receipts when it
 * was signed after its settlement's batch was written (lib/ledger/receipt-slot.ts). What this
 * process has only queued (settlements and receipts, written a few milliseconds later) is
 * written first, so a receipt is found as soon as its caller has it. `accountId` limits the
 * lookup to one payer's requests.
 */
export async function storedReceipt(
  app: { database: { db: Executor } } & ReceiptServices & Pick<LedgerServices, "leases">,
  requestId: string,
  accountId?: bigint,
): Promise<string | undefined> {
  if (!app.receipts) return undefined;
  await Promise.all([app.leases?.flush(), app.receipts.store.flush()]);
  const payer = accountId === undefined ? sql`` : sql`AND account_id = ${accountId}`;
  const [row] = await queryRows<{ jws: string }>(
    app.database.db,
    sql`SELECT receipt AS jws FROM usage_records WHERE request_id = ${requestId} AND receipt IS NOT NULL ${payer}
        UNION ALL
        SELECT jws FROM usage_receipts WHERE request_id = ${requestId} ${payer}
        LIMIT 1`,
  );
  return row?.jws;
}
