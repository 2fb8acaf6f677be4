import { bigint, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** One row per billed request: what was served, by whom, and what it cost. */
export const usageRecords = pgTable(
  "usage_records",
  {
    requestId: text("request_id").primaryKey(),
    accountId: bigint("account_id", { mode: "bigint" }).notNull(),
    model: text("model").notNull(),
    route: text("route").notNull(),
    providerId: text("provider_id").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    cacheReadTokens: integer("cache_read_tokens").notNull(),
    cacheWriteTokens: integer("cache_write_tokens").notNull(),
    costMicrounits: bigint("cost_microunits", { mode: "bigint" }).notNull(),
    outcome: text("outcome").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("usage_records_account_idx").on(table.accountId)],
);
