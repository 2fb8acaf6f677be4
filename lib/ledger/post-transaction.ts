import { sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { accounts, ledgerEntries, ledgerTransactions } from "../db/schema";

interface LedgerEntryInput {
  accountId: bigint;
  /** Positive credits the account, negative debits it. */
  amount: bigint;
}

export interface PostTransactionInput {
  kind: string;
  idempotencyKey?: string;
  metadata?: Record<string, unknown>;
  entries: LedgerEntryInput[];
}

export type PostTransactionResult = { type: "posted"; transactionId: string } | { type: "duplicate" };

class UnbalancedTransactionError extends Error {
  override readonly name = "UnbalancedTransactionError";
}

/**
 * Posts one balanced movement and moves the account balances with it. Must run inside
 * a database transaction so the entries and balances can never disagree. A repeated
 * idempotency key posts nothing and reports `duplicate`: the unique index is the replay guard.
 */
export async function postTransaction(
  executor: Executor,
  input: PostTransactionInput,
): Promise<PostTransactionResult> {
  const entries = input.entries.filter((entry) => entry.amount !== 0n);
  const sum = entries.reduce((total, entry) => total + entry.amount, 0n);
  if (sum !== 0n) throw new UnbalancedTransactionError(`ledger transaction ${input.kind} sums to ${sum}`);

  const inserted = await executor
    .insert(ledgerTransactions)
    .values({
      kind: input.kind,
      idempotencyKey: input.idempotencyKey ?? null,
      metadata: input.metadata ?? {},
    })
    .onConflictDoNothing({ target: ledgerTransactions.idempotencyKey })
    .returning({ id: ledgerTransactions.id });
  const transaction = inserted[0];
  if (!transaction) return { type: "duplicate" };
  if (entries.length === 0) return { type: "posted", transactionId: transaction.id };

  await executor.insert(ledgerEntries).values(
    entries.map((entry) => ({
      transactionId: transaction.id,
      accountId: entry.accountId,
      amount: entry.amount,
    })),
  );
  // Sorted ids keep concurrent postings from deadlocking on each other's rows.
  const sorted = [...entries].sort((a, b) =>
    a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0,
  );
  for (const entry of sorted) {
    await executor
      .update(accounts)
      .set({ balance: sql`${accounts.balance} + ${entry.amount}` })
      .where(sql`${accounts.id} = ${entry.accountId}`);
  }
  return { type: "posted", transactionId: transaction.id };
}
