import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accountId, createdAt, randomId } from "./columns";
import { tokenKey, tokenRef } from "./owners";

/**
 * A token's low-balance alert: when its balance falls below the threshold, the dashboard shows
 * a banner and, with a webhook URL, one signed POST is sent. `armed` is cleared by the one
 * process that sends it (a conditional update) and set again once the balance is back above.
 */
export const lowBalanceAlerts = pgTable("low_balance_alerts", {
  tokenId: tokenKey(),
  accountId: accountId(),
  thresholdMicrounits: bigint("threshold_microunits", { mode: "bigint" }).notNull(),
  webhookUrl: text("webhook_url"),
  /** HMAC-SHA256 key of the `Pod-Signature` header; shown to the owner, never to anyone else. */
  webhookSecret: text("webhook_secret").notNull(),
  armed: boolean("armed").notNull().default(true),
  lastSentAt: timestamp("last_sent_at", { withTimezone: true }),
  /** The last delivery's outcome in words ("200", "timed out", …). */
  lastResult: text("last_result"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Auto top-up by card: off by default; when on, a balance below the threshold charges the
 * saved payment method `amount_cents` off-session, at most `monthly_cap_cents` per UTC month.
 */
export const autoTopUps = pgTable(
  "auto_top_ups",
  {
    tokenId: tokenKey(),
    accountId: accountId(),
    enabled: boolean("enabled").notNull().default(false),
    /** Cleared by the charge; set again once the balance is back at the threshold: one charge per crossing. */
    armed: boolean("armed").notNull().default(true),
    thresholdMicrounits: bigint("threshold_microunits", { mode: "bigint" }).notNull(),
    amountCents: bigint("amount_cents", { mode: "bigint" }).notNull(),
    monthlyCapCents: bigint("monthly_cap_cents", { mode: "bigint" }).notNull(),
    stripeCustomerId: text("stripe_customer_id"),
    /** The saved card (a `pm_…` id) from a Checkout Session in setup mode. */
    paymentMethodId: text("payment_method_id"),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    /** The setup session the owner was last sent to (its webhook saves the card). */
    setupSessionId: text("setup_session_id"),
    /** Why it turned itself off (a declined card), in words. */
    lastError: text("last_error"),
    /** A card dispute on the account stopped it: no charge until an operator clears this. */
    suspendedAt: timestamp("suspended_at", { withTimezone: true }),
    suspendedReason: text("suspended_reason"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check("auto_top_ups_amounts", sql`${table.amountCents} > 0 AND ${table.monthlyCapCents} >= 0`)],
);

/**
 * One auto top-up charge. The partial unique index allows one charge `pending` per token: the
 * row is the claim, written before Stripe is called, so racing processes charge once.
 */
export const autoTopUpCharges = pgTable(
  "auto_top_up_charges",
  {
    id: randomId(),
    tokenId: tokenRef(),
    accountId: accountId(),
    amountCents: bigint("amount_cents", { mode: "bigint" }).notNull(),
    creditMicrounits: bigint("credit_microunits", { mode: "bigint" }).notNull(),
    /** Taken back by refunds and disputes of the charge (as for a Checkout session). */
    reversedMicrounits: bigint("reversed_microunits", { mode: "bigint" }).notNull().default(sql`0`),
    /** pending (claimed, Stripe called) | succeeded (credited) | failed */
    status: text("status").notNull(),
    paymentIntentId: text("payment_intent_id"),
    receiptUrl: text("receipt_url"),
    failure: text("failure"),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("auto_top_up_charges_one_pending").on(table.tokenId).where(sql`${table.status} = 'pending'`),
    index("auto_top_up_charges_token_idx").on(table.tokenId, table.createdAt),
    check("auto_top_up_charges_status", sql`${table.status} IN ('pending', 'succeeded', 'failed')`),
  ],
);
