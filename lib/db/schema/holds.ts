import { bigint, boolean, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt } from "./columns";

/** Worst-case reservation of an in-flight request; a sweeper releases those a crash left behind. */
export const holds = pgTable(
  "holds",
  {
    id: text("id").primaryKey(),
    accountId: bigint("account_id", { mode: "bigint" })
      .notNull()
      .references(() => accounts.id),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    createdAt: createdAt(),
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

/**
 * Settlements a process has answered but not yet written to the ledger, on Postgres where
 * replicas share it (lib/ledger/database-journal.ts): a row is committed before the client
 * has its answer, so whichever process outlives this one bills it, whether or not this one
 * ever comes back. `final` false is a stream's running count, journaled while it relays.
 */
export const settlementJournal = pgTable(
  "settlement_journal",
  {
    requestId: text("request_id").primaryKey(),
    instanceId: text("instance_id").notNull(),
    /** What replay needs of the settlement (lib/ledger/journal-payload.ts); older rows hold all of it. */
    settlement: jsonb("settlement").$type<Record<string, unknown>>().notNull(),
    final: boolean("final").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("settlement_journal_instance_idx").on(table.instanceId)],
);
