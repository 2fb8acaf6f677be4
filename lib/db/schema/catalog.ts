import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

interface StoredImageRate {
  size: string;
  quality: string;
  microunits: string;
}

/** `image_rates`: per image by size and quality, for generations and for edits. */
export interface StoredImageRates {
  generate: StoredImageRate[];
  edit: StoredImageRate[];
}

/**
 * Canonical models: seeded at first start from the shipped dataset (and the gateway's own
 * additions), refreshed from upstream model lists, and edited by the operator. A disabled
 * model stays in the table (listings and history reference it) but is neither listed nor routed.
 */
export const models = pgTable("models", {
  id: text("id").primaryKey(),
  ownedBy: text("owned_by").notNull(),
  contextWindow: integer("context_window").notNull(),
  maxOutputTokens: integer("max_output_tokens").notNull(),
  name: text("name"),
  /** `chat`, `embedding` or `image`: which endpoints may use the model. */
  kind: text("kind").notNull().default("chat"),
  /** Other spellings clients send (vendor prefixes, dated snapshots). */
  aliases: jsonb("aliases").$type<string[]>().notNull().default([]),
  inputModalities: jsonb("input_modalities").$type<string[]>().notNull().default(["text"]),
  outputModalities: jsonb("output_modalities").$type<string[]>().notNull().default(["text"]),
  supportsTools: boolean("supports_tools").notNull().default(true),
  supportsReasoning: boolean("supports_reasoning").notNull().default(false),
  supportsStructuredOutput: boolean("supports_structured_output").notNull().default(false),
  uncensored: boolean("uncensored").notNull().default(false),
  disabled: boolean("disabled").notNull().default(false),
  /** Where the row came from: `dataset`, `gateway`, `refresh:<source>` or `operator`. */
  source: text("source").notNull().default("dataset"),
  /** Set once the operator edits the model: refreshes then leave its metadata alone. */
  operatorEdited: boolean("operator_edited").notNull().default(false),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * What each centralized provider charges for a model: microunits per 1M tokens; or, with
 * `request_price`, a fixed price per request (token rates zero); or, for an image model,
 * `image_rates` (microunits per image by size and quality, as decimal strings: JSON has no bigint).
 */
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
    requestPrice: bigint("request_price", { mode: "bigint" }),
    imageRates: jsonb("image_rates").$type<StoredImageRates>(),
    source: text("source").notNull().default("dataset"),
    /** Set by an operator price: refreshes never overwrite it. */
    operatorPinned: boolean("operator_pinned").notNull().default(false),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.modelId, table.provider] }),
    check(
      "centralized_prices_non_negative",
      sql`${table.inputPer1m} >= 0 AND ${table.outputPer1m} >= 0 AND ${table.cacheReadPer1m} >= 0 AND ${table.cacheWritePer1m} >= 0`,
    ),
    check("centralized_prices_request_price_non_negative", sql`${table.requestPrice} >= 0`),
  ],
);

/** Every change to the catalog: who made it, when, and the row before and after. */
export const catalogChanges = pgTable(
  "catalog_changes",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    /** `operator:<name>`, `refresh:<source>`, `seed:<dataset>`. */
    actor: text("actor").notNull(),
    modelId: text("model_id").notNull(),
    provider: text("provider"),
    /** `model-added`, `model-updated`, `model-disabled`, `model-enabled`, `price-added`, `price-changed`. */
    action: text("action").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
  },
  (table) => [index("catalog_changes_model_idx").on(table.modelId, table.id)],
);

/**
 * One row: the catalog version (bumped by every change, so each process reloads its
 * in-memory index) and the providers already seeded from the dataset.
 */
export const catalogState = pgTable("catalog_state", {
  id: integer("id").primaryKey().default(1),
  version: bigint("version", { mode: "bigint" }).notNull().default(sql`0`),
  seededProviders: jsonb("seeded_providers").$type<string[]>().notNull().default([]),
  refreshedAt: timestamp("refreshed_at", { withTimezone: true }),
});
