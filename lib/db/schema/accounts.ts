import { sql } from "drizzle-orm";
import { bigint, bigserial, check, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/**
 * A ledger account. `balance` is maintained in the same transaction as the entries
 * that move it; `held` is the part reserved by in-flight requests. Only `external`
 * accounts (the outside world: card, chain, upstream bills) may go negative.
 */
export const accounts = pgTable(
  "accounts",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    /** token | wallet | provider | treasury | external */
    kind: text("kind").notNull(),
    /** What the account belongs to: a token id, a wallet address, a provider id, or an external source name. */
    ref: text("ref").notNull(),
    balance: bigint("balance", { mode: "bigint" }).notNull().default(sql`0`),
    held: bigint("held", { mode: "bigint" }).notNull().default(sql`0`),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("accounts_kind_ref_idx").on(table.kind, table.ref),
    check("accounts_balance_non_negative", sql`${table.kind} = 'external' OR ${table.balance} >= 0`),
    check(
      "accounts_held_within_balance",
      sql`${table.held} >= 0 AND (${table.kind} = 'external' OR ${table.held} <= ${table.balance})`,
    ),
  ],
);

export type Account = typeof accounts.$inferSelect;
