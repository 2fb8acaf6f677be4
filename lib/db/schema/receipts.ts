import { index, pgTable, text } from "drizzle-orm/pg-core";
import { accountId, createdAt } from "./columns";

/**
 * The signed receipt of each billed request (lib/receipts), as the caller received it: listed
 * in the payer's activity and the serving host's earnings, so either can fetch it again.
 */
export const usageReceipts = pgTable(
  "usage_receipts",
  {
    requestId: text("request_id").primaryKey(),
    /** The payer's account (a token's, or an x402 wallet's). */
    accountId: accountId(),
    route: text("route").notNull(),
    /** The provider's name (centralized) or id (marketplace host, key relay). */
    providerId: text("provider_id").notNull(),
    /** The compact JWS. */
    jws: text("jws").notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    index("usage_receipts_account_idx").on(table.accountId),
    index("usage_receipts_provider_idx").on(table.providerId, table.createdAt),
  ],
);
