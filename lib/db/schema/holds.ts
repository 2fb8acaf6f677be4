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
    /** The gateway instance serving the request (lib/ledger/hold-keeper.ts); null until adopted. */
    owner: text("owner"),
  },
  (table) => [index("holds_expires_idx").on(table.expiresAt), index("holds_owner_idx").on(table.owner)],
);

/** Running gateway processes sharing the database, so a dead one's holds can be told apart. */
export const gatewayInstances = pgTable("gateway_instances", {
  id: text("id").primaryKey(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull().defaultNow(),
});
