import { index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { tokenRef } from "./owners";

/**
 * Responses API answers kept for the token that made them (`store`, the API's default), so
 * `previous_response_id` can continue the conversation and `GET`/`DELETE /v1/responses/{id}`
 * work. Only the key that made a response, or its account's token, can read, continue or
 * delete it. Rows expire after RESPONSES_RETENTION_DAYS and are swept.
 */
export const storedResponses = pgTable(
  "stored_responses",
  {
    id: text("id").primaryKey(),
    tokenId: tokenRef(),
    /** The API key that made it (null: the token itself); only that key, or the token, may use it. */
    apiKeyId: uuid("api_key_id"),
    /** The whole conversation the response answered, as Responses input items. */
    inputItems: jsonb("input_items").$type<unknown[]>().notNull(),
    /** The Response object as the caller received it. */
    response: jsonb("response").$type<Record<string, unknown>>().notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("stored_responses_token_idx").on(table.tokenId),
    index("stored_responses_expiry_idx").on(table.expiresAt),
  ],
);
