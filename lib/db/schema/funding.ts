import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { accountId, createdAt } from "./columns";
import { tokenRef } from "./owners";

/**
 * A Stripe Checkout Session the gateway created. The webhook credits only sessions found
 * here, and only for the amount and currency recorded at creation.
 */
export const cardSessions = pgTable(
  "card_sessions",
  {
    /** Stripe's `cs_…` id. */
    id: text("id").primaryKey(),
    tokenId: tokenRef(),
    accountId: accountId(),
    /** What the token's balance gains. */
    creditMicrounits: bigint("credit_microunits", { mode: "bigint" }).notNull(),
    /** What the payer is charged, in the currency's minor unit (credit plus any passed-on fee). */
    amountTotal: bigint("amount_total", { mode: "bigint" }).notNull(),
    feeAmount: bigint("fee_amount", { mode: "bigint" }).notNull(),
    currency: text("currency").notNull(),
    /** open | credited | expired | failed */
    status: text("status").notNull().default("open"),
    paymentIntentId: text("payment_intent_id"),
    /** Credit taken back by refunds and disputes so far (a receivable holds what could not be). */
    reversedMicrounits: bigint("reversed_microunits", { mode: "bigint" }).notNull().default(sql`0`),
    createdAt: createdAt(),
    creditedAt: timestamp("credited_at", { withTimezone: true }),
  },
  (table) => [
    index("card_sessions_account_idx").on(table.accountId),
    index("card_sessions_payment_intent_idx").on(table.paymentIntentId),
    check("card_sessions_status_known", sql`${table.status} IN ('open', 'credited', 'expired', 'failed')`),
  ],
);

/**
 * Every verified Stripe event, once: the primary key is the replay guard for retries. What
 * could not be applied (unknown session, amounts that disagree) is kept `parked` with why.
 */
export const stripeEvents = pgTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  /** credited | reversed | recorded | ignored | parked */
  outcome: text("outcome").notNull(),
  reason: text("reason"),
  sessionId: text("session_id"),
  payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
  receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Money a token owes back: the part of a refund or dispute its balance could not cover
 * when it arrived (a balance never goes below zero).
 */
export const receivables = pgTable(
  "receivables",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    accountId: accountId(),
    /** What the balance could not cover when the refund or dispute was booked. */
    amountMicrounits: bigint("amount_microunits", { mode: "bigint" }).notNull(),
    /** What is still owed: netted from the token's next funding, and spending is blocked until 0. */
    outstandingMicrounits: bigint("outstanding_microunits", { mode: "bigint" }).notNull().default(sql`0`),
    /** open | settled (collected in full) | won (a dispute decided for the payer: returned) */
    status: text("status").notNull().default("open"),
    /** stripe_refund | stripe_dispute */
    source: text("source").notNull(),
    /** The Stripe event that created it. */
    reference: text("reference").notNull().unique(),
    sessionId: text("session_id"),
    createdAt: createdAt(),
  },
  (table) => [
    index("receivables_account_idx").on(table.accountId),
    check("receivables_outstanding_in_range", sql`${table.outstandingMicrounits} >= 0`),
  ],
);

/**
 * One inbound Solana transaction seen on the deposit account, keyed by signature: a deposit
 * is credited at most once however often the watcher scans it. Unmatched ones (no code,
 * unknown code, another asset, failed, zero) stay here for an operator.
 */
export const chainDeposits = pgTable(
  "chain_deposits",
  {
    signature: text("signature").primaryKey(),
    network: text("network").notNull(),
    slot: bigint("slot", { mode: "bigint" }).notNull(),
    blockTime: timestamp("block_time", { withTimezone: true }),
    memo: text("memo"),
    /** The mint that arrived (USDC, or the other asset of a wrong-asset deposit). */
    mint: text("mint"),
    /** Atomic units of `mint` that reached the deposit wallet. */
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    /** Fee payer of the transaction: where a refund would go. */
    sender: text("sender"),
    /** credited | bonded | unmatched | assigned | refunded */
    status: text("status").notNull(),
    /** Why an unmatched deposit was not credited. */
    reason: text("reason"),
    tokenId: uuid("token_id"),
    hostId: uuid("host_id"),
    /**
     * USDC microunits this deposit put in the suspense ledger account and that are still there:
     * set for an unmatched USDC deposit, zeroed when an operator assigns or refunds it. Another
     * asset or an amount of zero never enters the USDC ledger, so it stays 0 for those.
     */
    suspenseMicrounits: bigint("suspense_microunits", { mode: "bigint" }).notNull().default(sql`0`),
    /** The operator's refund transfer, when they name it while marking the deposit refunded. */
    refundSignature: text("refund_signature"),
    resolutionNote: text("resolution_note"),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    index("chain_deposits_status_idx").on(table.status),
    index("chain_deposits_token_idx").on(table.tokenId),
    check(
      "chain_deposits_status_known",
      sql`${table.status} IN ('credited', 'bonded', 'unmatched', 'assigned', 'refunded')`,
    ),
  ],
);

export type ChainDeposit = typeof chainDeposits.$inferSelect;

/** The newest signature the deposit watcher has fully processed, per watched address. */
export const depositCursors = pgTable("deposit_cursors", {
  address: text("address").primaryKey(),
  lastSignature: text("last_signature").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** A time-bound lease: one replica at a time runs a job that several share a database for. */
export const maintenanceLeases = pgTable("maintenance_leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});
