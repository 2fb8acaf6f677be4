import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { x402Quotes } from "../db/schema";

export type StoredQuote = typeof x402Quotes.$inferSelect;
export type NewQuote = typeof x402Quotes.$inferInsert;

export async function insertQuote(executor: Executor, quote: NewQuote): Promise<void> {
  await executor.insert(x402Quotes).values(quote);
}

export async function findQuote(executor: Executor, id: string): Promise<StoredQuote | undefined> {
  const rows = await executor.select().from(x402Quotes).where(eq(x402Quotes.id, id));
  return rows[0];
}

/**
 * Marks the quote settled by `by`, once: the conditional update is atomic, so of any
 * number of concurrent settlements (in any process) exactly one gets `true`.
 */
export async function consumeQuote(executor: Executor, id: string, by: string): Promise<boolean> {
  const rows = await executor
    .update(x402Quotes)
    .set({ consumedAt: sql`now()`, consumedBy: by })
    .where(and(eq(x402Quotes.id, id), isNull(x402Quotes.consumedAt)))
    .returning({ id: x402Quotes.id });
  return rows.length === 1;
}

/** Frees a quote whose payment never happened (a co-signed transaction that did not land). */
export async function releaseQuote(executor: Executor, id: string, by: string): Promise<void> {
  await executor
    .update(x402Quotes)
    .set({ consumedAt: null, consumedBy: null })
    .where(and(eq(x402Quotes.id, id), eq(x402Quotes.consumedBy, by)));
}
