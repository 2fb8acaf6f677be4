import { sql } from "drizzle-orm";
import { bigserial, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/**
 * What the operator is told (lib/operator-console/operator-notices.ts): one row per episode of a
 * condition (a payout awaiting approval, a host demoted or excluded, an agent away too long, a
 * reconcile difference), open until the condition clears. At most one open row per condition:
 * the replica whose insert wins is the one that sends the webhook, so it is sent once.
 */
export const operatorNotices = pgTable(
  "operator_notices",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    /** payout_awaiting_approval | host_demoted | host_excluded | agent_disconnected | reconcile_difference */
    kind: text("kind").notNull(),
    /** What it is about: a payout id, a provider id, "ledger". */
    subject: text("subject").notNull(),
    /** In words, as the console and the webhook say it. */
    text: text("text").notNull(),
    /** How the webhook went ("delivered (HTTP 200)", "no webhook configured"). */
    delivery: text("delivery"),
    createdAt: createdAt(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("operator_notices_open_idx")
      .on(table.kind, table.subject)
      .where(sql`${table.resolvedAt} IS NULL`),
    index("operator_notices_created_idx").on(table.createdAt),
  ],
);
