import { bigint, bigserial, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, randomId } from "./columns";

/** One balanced movement of money. `idempotencyKey` is the replay guard (Stripe event, chain signature, request id). */
export const ledgerTransactions = pgTable("ledger_transactions", {
  id: randomId(),
  kind: text("kind").notNull(),
  idempotencyKey: text("idempotency_key").unique(),
  metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
  createdAt: createdAt(),
});

/** Signed amounts: positive credits the account, negative debits it. The entries of one transaction sum to zero. */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    transactionId: uuid("transaction_id")
      .notNull()
      .references(() => ledgerTransactions.id),
    accountId: bigint("account_id", { mode: "bigint" })
      .notNull()
      .references(() => accounts.id),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    index("ledger_entries_account_idx").on(table.accountId),
    index("ledger_entries_transaction_idx").on(table.transactionId),
  ],
);
