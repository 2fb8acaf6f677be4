import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, randomId } from "./columns";
import { hostRef } from "./owners";

/**
 * A USDC transfer from the payout wallet to a host: a withdrawal of earnings or the return
 * of a bond. The amount leaves the host's account when the row is created, so the balance
 * can never be paid out twice. The signed transaction and its signature are recorded before
 * it is broadcast: after a crash the same bytes are re-sent or proven expired, never re-signed
 * while they could still land.
 */
export const hostPayouts = pgTable(
  "host_payouts",
  {
    id: randomId(),
    hostId: hostRef(),
    /** withdrawal | bond_return */
    kind: text("kind").notNull(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    /** Solana owner address the USDC goes to. */
    destination: text("destination").notNull(),
    /** The caller's Idempotency-Key; a retry returns the first payout instead of a second one. */
    idempotencyKey: text("idempotency_key").notNull(),
    /** awaiting_approval | requested | broadcast | confirmed | failed */
    status: text("status").notNull(),
    signature: text("signature"),
    signedTransaction: text("signed_transaction"),
    attempts: integer("attempts").notNull().default(0),
    error: text("error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("host_payouts_idempotency_idx").on(table.hostId, table.idempotencyKey),
    index("host_payouts_status_idx").on(table.status),
    check("host_payouts_amount_positive", sql`${table.amount} > 0`),
    check(
      "host_payouts_status_known",
      sql`${table.status} IN ('awaiting_approval', 'requested', 'broadcast', 'confirmed', 'failed')`,
    ),
  ],
);

export type HostPayout = typeof hostPayouts.$inferSelect;
