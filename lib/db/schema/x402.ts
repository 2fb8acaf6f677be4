import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  date,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/**
 * An x402 quote: the price ceiling of one request, bound to its exact bytes. A quote is
 * settled at most once (`consumedAt`), and only by a request whose method, path and body
 * hash to `bodyHash`.
 */
export const x402Quotes = pgTable(
  "x402_quotes",
  {
    id: uuid("id").primaryKey(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    /** sha256 hex of `METHOD\nPATH\nBODY`. */
    bodyHash: text("body_hash").notNull(),
    model: text("model").notNull(),
    /** CAIP-2 id of the chain the quote is payable on. */
    network: text("network").notNull(),
    payTo: text("pay_to").notNull(),
    /** The worst-case cost in USDC microunits: what the native USDC rail asks and what is held. */
    capMicrounits: bigint("cap_microunits", { mode: "bigint" }).notNull(),
    /** The native SOL rail's amount; null when no SOL price was available at quote time. */
    capLamports: bigint("cap_lamports", { mode: "bigint" }),
    /** The SOL/USD rate the SOL amounts were derived from (micro-USD per SOL); SOL credits use it too. */
    microUsdPerSol: bigint("micro_usd_per_sol", { mode: "bigint" }),
    /** Standard-scheme USDC amount: the cap floored at one cent. */
    standardMicrounits: bigint("standard_microunits", { mode: "bigint" }).notNull(),
    /** Standard-scheme wrapped-SOL amount, in lamports. */
    standardLamports: bigint("standard_lamports", { mode: "bigint" }),
    /** Fee payer named in the standard entries; null when the quote offered none. */
    feePayer: text("fee_payer"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
    /** What settled it: a transaction signature, or `balance:<wallet>`. */
    consumedBy: text("consumed_by"),
  },
  (table) => [index("x402_quotes_expires_idx").on(table.expiresAt)],
);

/**
 * One on-chain payment claimed for a quote. The unique (network, signature) pair is the
 * replay guard across every gateway process sharing the database: a transaction settles at
 * most one quote, ever. Standard-scheme claims are written before broadcast, with the
 * co-signed transaction, so a retry or another process reconciles instead of re-sending.
 */
export const x402Payments = pgTable(
  "x402_payments",
  {
    id: bigserial("id", { mode: "bigint" }).primaryKey(),
    network: text("network").notNull(),
    signature: text("signature").notNull(),
    quoteId: uuid("quote_id")
      .notNull()
      .references(() => x402Quotes.id),
    /** native | standard */
    scheme: text("scheme").notNull(),
    /** USDC | SOL */
    asset: text("asset").notNull(),
    payerWallet: text("payer_wallet").notNull(),
    /** pending (standard, broadcast under way) | settled | failed */
    status: text("status").notNull(),
    /** Atomic units that reached pay_to: USDC microunits or lamports. */
    receivedAmount: bigint("received_amount", { mode: "bigint" }),
    /** What the payer wallet's balance was credited, in USDC microunits. */
    creditedMicrounits: bigint("credited_microunits", { mode: "bigint" }),
    /** Standard scheme: the fully signed transaction, kept until it is final. */
    signedTransaction: text("signed_transaction"),
    /** Standard scheme: the lamports charged to the sponsored-fee budget. */
    sponsoredFeeLamports: bigint("sponsored_fee_lamports", { mode: "bigint" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("x402_payments_network_signature_idx").on(table.network, table.signature),
    index("x402_payments_quote_idx").on(table.quoteId),
    check("x402_payments_status_valid", sql`${table.status} IN ('pending', 'settled', 'failed')`),
  ],
);

/**
 * Lamports spent on sponsored (co-signed) fees per UTC day. A conditional increment keeps
 * concurrent settlements from overspending the daily budget.
 */
export const x402SponsoredFees = pgTable("x402_sponsored_fees", {
  day: date("day").primaryKey(),
  spentLamports: bigint("spent_lamports", { mode: "bigint" }).notNull(),
  settlements: integer("settlements").notNull().default(0),
});
