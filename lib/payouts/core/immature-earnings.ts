import { and, eq, gt, sql } from "drizzle-orm";
import type { Executor } from "../../db/client";
import { ledgerEntries, ledgerTransactions } from "../../db/schema";

/**
 * What the host's account was credited for serving within the last `maturitySeconds`: the part
 * of its balance that may not be withdrawn yet, and that slashing takes back for the callers.
 */
export async function immatureEarnings(
  executor: Executor,
  providerAccountId: bigint,
  maturitySeconds: number,
): Promise<bigint> {
  if (maturitySeconds <= 0) return 0n;
  const since = new Date(Date.now() - maturitySeconds * 1000);
  const [row] = await executor
    .select({ total: sql<string>`COALESCE(SUM(${ledgerEntries.amount}), 0)::text` })
    .from(ledgerEntries)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transactionId))
    .where(
      and(
        eq(ledgerEntries.accountId, providerAccountId),
        gt(ledgerEntries.createdAt, since),
        gt(ledgerEntries.amount, 0n),
        // Inference settlements are what credit a host for serving (one or a batch of them).
        eq(ledgerTransactions.kind, "inference"),
      ),
    );
  return BigInt(row?.total ?? "0");
}
