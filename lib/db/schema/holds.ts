import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";

/** Worst-case reservation of an in-flight request; a sweeper releases those a crash left behind. */
export const holds = pgTable(
  "holds",
  {
    id: text("id").primaryKey(),
    accountId: bigint("account_id", { mode: "bigint" })
      .notNull()
      .references(() => accounts.id),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("holds_expires_idx").on(table.expiresAt)],
);
