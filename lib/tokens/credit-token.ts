import { and, eq, isNull } from "drizzle-orm";
import type { Database, Executor } from "../db/client";
import { apiTokens } from "../db/schema";
import { type AccountKind, ensureAccount } from "../ledger/accounts";
import { type PostTransactionResult, postTransaction } from "../ledger/post-transaction";
import { collectReceivables } from "../ledger/receivables";

export interface CreditTokenInput {
  tokenId: string;
  accountId: bigint;
  amount: bigint;
  kind: string;
  /** The outside-world account the money comes from (admin credits, card, chain). */
  source: { kind: AccountKind; ref: string };
  idempotencyKey?: string;
  metadata?: Record<string, unknown>;
}

/**
 * Credits a token's balance from an external source and activates the token on its first
 * credit; an open receivable is netted from the credit at once.
 */
export async function creditToken(
  database: Database,
  input: CreditTokenInput,
): Promise<PostTransactionResult> {
  return database.transaction((transaction) => postTokenCredit(transaction, input));
}

/** The same credit inside a transaction the caller holds (with its own bookkeeping beside it). */
export async function postTokenCredit(
  executor: Executor,
  input: CreditTokenInput,
): Promise<PostTransactionResult> {
  if (input.amount <= 0n) throw new RangeError("credit amount must be positive");
  const sourceId = await ensureAccount(executor, input.source.kind, input.source.ref);
  const result = await postTransaction(executor, {
    kind: input.kind,
    ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
    metadata: input.metadata ?? {},
    entries: [
      { accountId: sourceId, amount: -input.amount },
      { accountId: input.accountId, amount: input.amount },
    ],
  });
  if (result.type === "posted") {
    await executor
      .update(apiTokens)
      .set({ activatedAt: new Date() })
      .where(and(eq(apiTokens.id, input.tokenId), isNull(apiTokens.activatedAt)));
    // What a refund or dispute left owed is paid first from any new funding, in the same transaction.
    await collectReceivables(executor, input.accountId);
  }
  return result;
}
