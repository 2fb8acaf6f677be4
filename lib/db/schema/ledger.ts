import { bigint, bigserial, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, randomId } from "./columns";

/** One balanced movement of money. `idempotencyKey` is the replay guard (Stripe event, chain signature, request id). */
export const ledgerTransactions = pgTable("ledger_transactions", {
  id: randomId(),
  kind: text("kind").notNull(),
  idempotencyKey: text("idempotency_key").unique(),
  metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
  createdAt: createdAt(),
});

/**
 * Signed amounts: positive credits the account, negative debits it. The entries of one transaction sum to zero.
 * `transaction_id` and `account_id` name rows of ledger_transactions and accounts. Migration 0027
 * holds them to it with statement triggers instead of foreign keys: one check over all the rows
 * a statement wrote (a settlement batch writes hundreds) instead of a locked lookup per row,
 * which was 39% of a batch's time on the embedded database; a referenced row cannot be deleted
 * while an entry names it, nor its id changed.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    transactionId: uuid("transaction_id").notNull(),
    accountId: bigint("account_id", { mode: "bigint" }).notNull(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    index("ledger_entries_account_idx").on(table.accountId),
    index("ledger_entries_transaction_idx").on(table.transactionId),
  ],
);
