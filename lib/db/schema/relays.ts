import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { models } from "./catalog";
import { createdAt, randomId } from "./columns";
import { hostRef } from "./owners";

/**
 * An upstream API key a host resells. Only the AES-256-GCM ciphertext is stored; it is
 * decrypted when a request is dispatched to it and never returned or logged. Revoking
 * clears the ciphertext, so a revoked key cannot be recovered from the database.
 */
export const relayKeys = pgTable(
  "relay_keys",
  {
    id: uuid("id").primaryKey(),
    hostId: hostRef(),
    /** One of the centralized upstream kinds (openai, anthropic, openrouter, together, groq, venice). */
    upstream: text("upstream").notNull(),
    label: text("label"),
    /** `v1:<base64 iv|tag|ciphertext>`, bound to this row's id as associated data; null once revoked. */
    ciphertext: text("ciphertext"),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (table) => [index("relay_keys_host_idx").on(table.hostId)],
);

/**
 * What a host sells on one canonical model through one of its relay keys, in microunits
 * per 1M tokens. One listing per host and model, so a provider id plus a model names it.
 */
export const relayListings = pgTable(
  "relay_listings",
  {
    id: randomId(),
    hostId: hostRef(),
    relayKeyId: uuid("relay_key_id")
      .notNull()
      .references(() => relayKeys.id),
    modelId: text("model_id")
      .notNull()
      .references(() => models.id),
    /** The id the upstream knows the model by; `model` is rewritten to it on dispatch. */
    upstreamModelId: text("upstream_model_id").notNull(),
    inputPer1m: bigint("input_per_1m", { mode: "bigint" }).notNull(),
    outputPer1m: bigint("output_per_1m", { mode: "bigint" }).notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** Earnings (the host's 80% share) a rolling 24 hours may credit before the listing leaves routing. */
    dailyCapMicrounits: bigint("daily_cap_microunits", { mode: "bigint" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("relay_listings_host_model_idx").on(table.hostId, table.modelId),
    index("relay_listings_model_idx").on(table.modelId),
    check("relay_listings_prices_non_negative", sql`${table.inputPer1m} >= 0 AND ${table.outputPer1m} >= 0`),
    check(
      "relay_listings_cap_positive",
      sql`${table.dailyCapMicrounits} IS NULL OR ${table.dailyCapMicrounits} > 0`,
    ),
  ],
);

export type RelayKey = typeof relayKeys.$inferSelect;
export type RelayListing = typeof relayListings.$inferSelect;
