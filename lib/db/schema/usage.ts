import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { accountId, createdAt } from "./columns";

/**
 * One row per billed request: what was served, by whom, and what it cost. Token counts are
 * bigint: any count a boundary schema lets through fits, so no reply can make a write fail.
 */
export const usageRecords = pgTable(
  "usage_records",
  {
    requestId: text("request_id").primaryKey(),
    accountId: accountId(),
    model: text("model").notNull(),
    route: text("route").notNull(),
    providerId: text("provider_id").notNull(),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull(),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull(),
    cacheReadTokens: bigint("cache_read_tokens", { mode: "number" }).notNull(),
    cacheWriteTokens: bigint("cache_write_tokens", { mode: "number" }).notNull(),
    costMicrounits: bigint("cost_microunits", { mode: "bigint" }).notNull(),
    outcome: text("outcome").notNull(),
    /** The API key that made the request (api_keys.id); null for the token itself. */
    apiKeyId: uuid("api_key_id"),
    createdAt: createdAt(),
  },
  (table) => [
    index("usage_records_account_idx").on(table.accountId),
    // A key's spend in its limit period is summed from here. Only rows a key made are indexed:
    // most requests come with the token itself, and an index entry is a cost on every insert.
    index("usage_records_api_key_idx")
      .on(table.apiKeyId, table.createdAt)
      .where(sql`${table.apiKeyId} IS NOT NULL`),
  ],
);

/**
 * A settlement the database refused (a constraint, a value it cannot store, a trigger): kept
 * here with the reason instead of being retried at the head of the writer's line. Its charge
 * was booked without a usage record: the account paid what its lease or balance covered and
 * the rest went to the loss account, in the transaction that wrote this row.
 */
export const settlementQuarantine = pgTable("settlement_quarantine", {
  requestId: text("request_id").primaryKey(),
  accountId: accountId(),
  /** The settlement as it was journaled (bigints as decimal strings). */
  settlement: jsonb("settlement").$type<Record<string, unknown>>().notNull(),
  reason: text("reason").notNull(),
  chargedMicrounits: bigint("charged_microunits", { mode: "bigint" }).notNull(),
  lossMicrounits: bigint("loss_microunits", { mode: "bigint" }).notNull(),
  createdAt: createdAt(),
});
