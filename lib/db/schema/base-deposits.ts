import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accountId, createdAt } from "./columns";
import { tokenRef } from "./owners";

/**
 * One EIP-3009 authorization submitted to fund a token with USDC on Base. The row is the
 * claim: written before anything is submitted, and the unique (network, authorization_key)
 * pair means an authorization is submitted and credited at most once, whichever process or
 * request gets it first. A claim whose submission never happened is deleted (the
 * authorization is still unused on-chain and may be sent again).
 */
export const baseDeposits = pgTable(
  "base_deposits",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    network: text("network").notNull(),
    /** `<usdc contract>:<from>:<nonce>`, lowercase: the key the token contract allows once. */
    authorizationKey: text("authorization_key").notNull(),
    tokenId: tokenRef(),
    accountId: accountId(),
    payer: text("payer").notNull(),
    /** USDC microunits the authorization moves (and the token is credited). */
    amountMicrounits: bigint("amount_microunits", { mode: "bigint" }).notNull(),
    nonce: text("nonce").notNull(),
    /** The random salt that, with the token's deposit_code, hashes to `nonce`. */
    salt: text("salt").notNull(),
    /** pending (claimed, submission under way) | credited | failed (the transaction reverted) */
    status: text("status").notNull(),
    reason: text("reason"),
    transactionHash: text("transaction_hash"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    creditedAt: timestamp("credited_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("base_deposits_network_authorization_idx").on(table.network, table.authorizationKey),
    index("base_deposits_token_idx").on(table.tokenId),
    check("base_deposits_status_known", sql`${table.status} IN ('pending', 'credited', 'failed')`),
  ],
);
