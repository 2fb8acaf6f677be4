import { eq, sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { queryRows } from "../db/client";
import { autoTopUpCharges, cardSessions } from "../db/schema";

/**
 * A card payment the gateway created and credited, as a refund or dispute reverses it: a
 * Checkout session or an off-session auto top-up charge. Both are found by their payment
 * intent and clawed back the same way (lib/funding/apply-stripe-event.ts).
 */
export interface ReversiblePayment {
  kind: "checkout" | "auto_top_up";
  /** The session id (`cs_…`) or the auto top-up charge's id (a uuid): receivables name it. */
  ref: string;
  tokenId: string;
  accountId: bigint;
  paymentIntentId: string | null;
  currency: string;
  /** What the payer paid, in the currency's minor unit (the fee included for Checkout). */
  amountTotal: bigint;
  creditMicrounits: bigint;
  reversedMicrounits: bigint;
  credited: boolean;
}

/** The ledger metadata key that names the payment a reversal took from. */
export const refKeys = {
  checkout: "stripe_session_id",
  auto_top_up: "stripe_auto_top_up_charge_id",
} as const;

const isUuid = (value: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

async function lockedSession(transaction: Executor, id: string): Promise<ReversiblePayment | undefined> {
  const [row] = await transaction.select().from(cardSessions).where(eq(cardSessions.id, id)).for("update");
  if (!row) return undefined;
  return {
    kind: "checkout",
    ref: row.id,
    tokenId: row.tokenId,
    accountId: row.accountId,
    paymentIntentId: row.paymentIntentId,
    currency: row.currency,
    amountTotal: row.amountTotal,
    creditMicrounits: row.creditMicrounits,
    reversedMicrounits: row.reversedMicrounits,
    credited: row.status === "credited",
  };
}

async function lockedTopUp(transaction: Executor, id: string): Promise<ReversiblePayment | undefined> {
  const [row] = await transaction
    .select()
    .from(autoTopUpCharges)
    .where(eq(autoTopUpCharges.id, id))
    .for("update");
  if (!row) return undefined;
  return {
    kind: "auto_top_up",
    ref: row.id,
    tokenId: row.tokenId,
    accountId: row.accountId,
    paymentIntentId: row.paymentIntentId,
    currency: "usd",
    amountTotal: row.amountCents,
    creditMicrounits: row.creditMicrounits,
    reversedMicrounits: row.reversedMicrounits,
    credited: row.status === "succeeded",
  };
}

/** The payment (locked for this transaction) a payment intent paid, whichever kind it is. */
export async function lockPaymentByIntent(
  transaction: Executor,
  paymentIntentId: string,
): Promise<ReversiblePayment | undefined> {
  const [found] = await queryRows<{ kind: string; id: string }>(
    transaction,
    sql`SELECT 'checkout' AS kind, id FROM card_sessions WHERE payment_intent_id = ${paymentIntentId}
        UNION ALL
        SELECT 'auto_top_up' AS kind, id::text FROM auto_top_up_charges WHERE payment_intent_id = ${paymentIntentId}
        LIMIT 1`,
  );
  if (!found) return undefined;
  return found.kind === "checkout"
    ? lockedSession(transaction, found.id)
    : lockedTopUp(transaction, found.id);
}

/** The payment (locked) a reversal or receivable names by its ref. */
export async function lockPaymentByRef(
  transaction: Executor,
  ref: string,
): Promise<ReversiblePayment | undefined> {
  return isUuid(ref) ? lockedTopUp(transaction, ref) : lockedSession(transaction, ref);
}

export async function setReversed(
  transaction: Executor,
  payment: ReversiblePayment,
  reversedMicrounits: bigint,
): Promise<void> {
  if (payment.kind === "checkout")
    await transaction
      .update(cardSessions)
      .set({ reversedMicrounits })
      .where(eq(cardSessions.id, payment.ref));
  else
    await transaction
      .update(autoTopUpCharges)
      .set({ reversedMicrounits })
      .where(eq(autoTopUpCharges.id, payment.ref));
}

/**
 * A card of this account was disputed (the stolen-card pattern: spend the credit, then charge
 * it back): auto top-up stops charging its saved card until an operator clears it.
 */
export async function suspendAutoTopUp(
  transaction: Executor,
  tokenId: string,
  disputeId: string,
): Promise<void> {
  await transaction.execute(
    sql`UPDATE auto_top_ups SET suspended_at = COALESCE(suspended_at, now()),
          suspended_reason = COALESCE(suspended_reason, ${`card dispute ${disputeId}`}), updated_at = now()
        WHERE token_id = ${tokenId}`,
  );
}
