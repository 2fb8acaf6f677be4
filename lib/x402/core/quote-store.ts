import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database, Executor } from "../../db/client";
import { x402QuoteOptions, x402Quotes } from "../../db/schema";

type QuoteRow = typeof x402Quotes.$inferSelect;
export type QuoteOption = typeof x402QuoteOptions.$inferSelect;
export type NewQuoteOption = Omit<typeof x402QuoteOptions.$inferInsert, "quoteId" | "position">;

/** A quote with its payment options, in `accepts` order. */
export interface StoredQuote extends QuoteRow {
  options: QuoteOption[];
}

/** Stores a quote and its options in one transaction: a quote is never visible without them. */
export async function insertQuote(
  executor: Executor,
  quote: typeof x402Quotes.$inferInsert,
  options: NewQuoteOption[],
): Promise<StoredQuote> {
  return executor.transaction(async (transaction) => {
    const [row] = await transaction.insert(x402Quotes).values(quote).returning();
    if (!row) throw new Error("x402: the quote was not stored");
    const stored =
      options.length === 0
        ? []
        : await transaction
            .insert(x402QuoteOptions)
            .values(options.map((option, position) => ({ ...option, quoteId: row.id, position })))
            .returning();
    return { ...row, options: stored.sort((a, b) => a.position - b.position) };
  });
}

export async function findQuote(executor: Executor, id: string): Promise<StoredQuote | undefined> {
  const rows = await executor.select().from(x402Quotes).where(eq(x402Quotes.id, id));
  const row = rows[0];
  if (!row) return undefined;
  const options = await executor
    .select()
    .from(x402QuoteOptions)
    .where(eq(x402QuoteOptions.quoteId, id))
    .orderBy(asc(x402QuoteOptions.position));
  return { ...row, options };
}

/** The networks a quote is payable on, in offer order, each once. */
export function quoteNetworks(quote: StoredQuote): string[] {
  return [...new Set(quote.options.map((option) => option.network))];
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

/** Frees a quote whose payment never happened (a transaction that did not land, a refused transfer). */
export async function releaseQuote(executor: Executor, id: string, by: string): Promise<void> {
  await executor
    .update(x402Quotes)
    .set({ consumedAt: null, consumedBy: null })
    .where(and(eq(x402Quotes.id, id), eq(x402Quotes.consumedBy, by)));
}

/**
 * Deletes quotes that expired over a day ago and that no on-chain payment references (those
 * stay, as the record of what the payment bought). A deleted quote can no longer be settled,
 * which an expired one could not be either.
 */
export async function pruneExpiredQuotes(database: Database): Promise<void> {
  await database.execute(
    sql`DELETE FROM x402_quotes AS q
        WHERE q.expires_at < now() - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM x402_payments AS p WHERE p.quote_id = q.id)`,
  );
}
