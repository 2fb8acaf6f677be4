import { and, eq, type SQL } from "drizzle-orm";
import type { Executor } from "../db/client";
import { usageReceipts } from "../db/schema";
import type { ReceiptServices } from "./receipt-services";

/**
 * A request's stored receipt, or undefined. What this process has only queued is written first:
 * the settlements (whose batch stores the receipts signed before it, receipt-slot.ts) and the
 * receipts queued on their own, both written a few milliseconds after the answer, so a receipt is
 * found as soon as its caller has it. `accountId` limits the lookup to one payer's requests.
 */
export async function storedReceipt(
  app: { database: { db: Executor }; leases: { flush(): Promise<void> } | undefined } & ReceiptServices,
  requestId: string,
  accountId?: bigint,
): Promise<string | undefined> {
  if (!app.receipts) return undefined;
  await Promise.all([app.leases?.flush(), app.receipts.store.flush()]);
  const conditions: SQL[] = [eq(usageReceipts.requestId, requestId)];
  if (accountId !== undefined) conditions.push(eq(usageReceipts.accountId, accountId));
  const [row] = await app.database.db
    .select({ jws: usageReceipts.jws })
    .from(usageReceipts)
    .where(and(...conditions));
  return row?.jws;
}
