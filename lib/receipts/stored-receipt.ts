import { and, eq, type SQL } from "drizzle-orm";
import type { Executor } from "../db/client";
import { usageReceipts } from "../db/schema";
import type { ReceiptServices } from "./receipt-services";

type QueueHolders = { leases: { flush(): Promise<void> } | undefined } & ReceiptServices;

/**
 * Writes what this process answered but has only queued, both a few milliseconds after the
 * answer: the settlements (whose batches store the receipts signed before them, receipt-slot.ts),
 * then the receipts queued on their own, among them those a batch that could not be written
 * handed back. After this the latest requests are in the database whole.
 */
export async function writeQueued(app: QueueHolders): Promise<void> {
  await app.leases?.flush();
  await app.receipts?.store.flush();
}

/**
 * A request's stored receipt, or undefined, found as soon as its caller has it (what is queued
 * is written first). `accountId` limits the lookup to one payer's requests.
 */
export async function storedReceipt(
  app: { database: { db: Executor } } & QueueHolders,
  requestId: string,
  accountId?: bigint,
): Promise<string | undefined> {
  if (!app.receipts) return undefined;
  await writeQueued(app);
  const conditions: SQL[] = [eq(usageReceipts.requestId, requestId)];
  if (accountId !== undefined) conditions.push(eq(usageReceipts.accountId, accountId));
  const [row] = await app.database.db
    .select({ jws: usageReceipts.jws })
    .from(usageReceipts)
    .where(and(...conditions));
  return row?.jws;
}
