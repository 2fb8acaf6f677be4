import { pgTable, text } from "drizzle-orm/pg-core";
import { accountId, createdAt } from "./columns";

/**
 * The signed receipt of each billed request (lib/receipts), as the caller received it: listed
 * in the payer's activity and the serving host's earnings, so either can fetch it again.
 * Every read finds a receipt by its request id: no other index, since one is written per request.
 */
export const usageReceipts = pgTable("usage_receipts", {
  requestId: text("request_id").primaryKey(),
  /** The payer's account (a token's, or an x402 wallet's). */
  accountId: accountId(),
  route: text("route").notNull(),
  /** The provider's name (centralized) or id (marketplace host, key relay). */
  providerId: text("provider_id").notNull(),
  /** The compact JWS. */
  jws: text("jws").notNull(),
  createdAt: createdAt(),
});
