import { desc, eq } from "drizzle-orm";
import type { Executor } from "../../db/client";
import { baseDeposits } from "../../db/schema";

/** A token's USDC deposits on Base, newest first: credited, failed, and any still pending. */
export async function listBaseDeposits(executor: Executor, tokenId: string, limit = 50) {
  return executor
    .select()
    .from(baseDeposits)
    .where(eq(baseDeposits.tokenId, tokenId))
    .orderBy(desc(baseDeposits.createdAt))
    .limit(limit);
}
