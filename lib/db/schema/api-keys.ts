import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accountId, createdAt, randomId } from "./columns";
import { tokenRef } from "./owners";

/**
 * A further API key of a token's account: it spends the same balance as the token but can be
 * labelled, limited per UTC day or month, rotated and revoked without touching the token (the
 * account's owner credential, which stays the zero-friction start). Only the key's sha256 is
 * stored, as for tokens; a rotation replaces the hash and keeps the row and its spend.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: randomId(),
    tokenId: tokenRef(),
    accountId: accountId(),
    keyHash: text("key_hash").notNull().unique(),
    /** The key's last six characters, to tell keys apart on a page without storing the key. */
    hint: text("hint").notNull(),
    label: text("label").notNull(),
    /** Most this key may spend per `limit_period`; null for no limit of its own. */
    limitMicrounits: bigint("limit_microunits", { mode: "bigint" }),
    /** day | month (UTC), set exactly when a limit is. */
    limitPeriod: text("limit_period"),
    /** What the key may do beyond inference (`read`, `manage`), chosen at creation. */
    scopes: text("scopes").array().notNull().default(sql`'{inference}'::text[]`),
    /** Every repeatable request the key makes asks the response cache (X-Pod-Cache: off still refuses). */
    responseCache: boolean("response_cache").notNull().default(false),
    createdAt: createdAt(),
    rotatedAt: timestamp("rotated_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (table) => [
    index("api_keys_token_idx").on(table.tokenId),
    check(
      "api_keys_limit_shape",
      sql`(${table.limitMicrounits} IS NULL AND ${table.limitPeriod} IS NULL) OR (${table.limitMicrounits} > 0 AND ${table.limitPeriod} IN ('day', 'month'))`,
    ),
  ],
);
