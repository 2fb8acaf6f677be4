import { bigint, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** Canonical models. Loaded from the catalog shipped in the repo at start. */
export const models = pgTable("models", {
  id: text("id").primaryKey(),
  ownedBy: text("owned_by").notNull(),
  contextWindow: integer("context_window").notNull(),
  maxOutputTokens: integer("max_output_tokens").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** What each centralized provider charges for a model, in microunits per 1M tokens. */
export const centralizedPrices = pgTable(
  "centralized_prices",
  {
    modelId: text("model_id")
      .notNull()
      .references(() => models.id),
    provider: text("provider").notNull(),
    upstreamModelId: text("upstream_model_id").notNull(),
    inputPer1m: bigint("input_per_1m", { mode: "bigint" }).notNull(),
    outputPer1m: bigint("output_per_1m", { mode: "bigint" }).notNull(),
    cacheReadPer1m: bigint("cache_read_per_1m", { mode: "bigint" }).notNull(),
    cacheWritePer1m: bigint("cache_write_per_1m", { mode: "bigint" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.modelId, table.provider] })],
);
