import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

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
    /**
     * The worst-case cost in USDC microunits: what is held on the payer's wallet while the
     * request runs. What each payment option asks is in `x402_quote_options`.
     */
    capMicrounits: bigint("cap_microunits", { mode: "bigint" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
    /** What settled it: a transaction signature, or `balance:<wallet>`. */
    consumedBy: text("consumed_by"),
  },
  (table) => [index("x402_quotes_expires_idx").on(table.expiresAt)],
);

/**
 * One payment option of a quote, in the order the `accepts` list offers them. Chain-neutral:
 * the mechanism that issued it (`solana-native`, `solana-exact`, `eip155-exact`) reads its own
 * `details` (a fee payer, the SOL/USD rate, an EIP-712 domain), so a new chain needs rows,
 * not columns.
 */
export const x402QuoteOptions = pgTable(
  "x402_quote_options",
  {
    quoteId: uuid("quote_id")
      .notNull()
      .references(() => x402Quotes.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    /** The mechanism of the rail that offered it (ARCHITECTURE.md, "Payment rails"). */
    mechanism: text("mechanism").notNull(),
    /** CAIP-2 id of the chain this option is payable on. */
    network: text("network").notNull(),
    /** The ticker (USDC, SOL); the mint or contract, when the mechanism needs one, is in `details`. */
    asset: text("asset").notNull(),
    payTo: text("pay_to").notNull(),
    /** Atomic units of the asset: USDC microunits, lamports. */
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    details: jsonb("details").$type<Record<string, string>>().notNull().default({}),
  },
  (table) => [primaryKey({ columns: [table.quoteId, table.position] })],
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
    /**
     * EVM: the transaction that carried the authorization (the `signature` column holds the
     * authorization's own key, `<token>:<from>:<nonce>`, which is what must never repeat).
     */
    transactionHash: text("transaction_hash"),
    /** Standard scheme: the lamports charged to the sponsored-fee budget. */
    sponsoredFeeLamports: bigint("sponsored_fee_lamports", { mode: "bigint" }),
    createdAt: createdAt(),
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

/**
 * Gas the in-process EVM facilitator spent per network and UTC day, in wei. Reserved before
 * submission with a conditional upsert (like the Solana fee budget), trued up from the receipt.
 */
export const x402GasSpend = pgTable(
  "x402_gas_spend",
  {
    network: text("network").notNull(),
    day: date("day").notNull(),
    spentWei: bigint("spent_wei", { mode: "bigint" }).notNull(),
    settlements: integer("settlements").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.network, table.day] })],
);
