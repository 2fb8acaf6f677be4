import { bigint, timestamp, uuid } from "drizzle-orm/pg-core";

// Columns several tables spell the same way. Each is a function: a drizzle column builder
// belongs to the one table it is placed in, so every table gets a fresh one.

/** A uuid row id the database draws. */
export const randomId = () => uuid("id").primaryKey().defaultRandom();

/** When the row was written. */
export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** The ledger account (accounts.id) whose money the row is about. */
export const accountId = () => bigint("account_id", { mode: "bigint" }).notNull();
