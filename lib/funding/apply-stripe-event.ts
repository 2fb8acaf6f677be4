import { eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Database, Executor } from "../db/client";
import { queryRows } from "../db/client";
import { apiTokens, cardSessions, stripeEvents } from "../db/schema";
import { ensureAccount, systemAccounts } from "../ledger/accounts";
import { postTransaction } from "../ledger/post-transaction";
import { postTokenCredit } from "../tokens/credit-token";
import {
  lockPaymentByIntent,
  lockPaymentByRef,
  type ReversiblePayment,
  refKeys,
  setReversed,
  suspendAutoTopUp,
} from "./reversible-payment";

type StripeEventOutcome =
  | "credited"
  | "reversed"
  | "reinstated"
  | "recorded"
  | "ignored"
  | "parked"
  | "duplicate";

export interface StripeEventResult {
  outcome: StripeEventOutcome;
  reason?: string;
  sessionId?: string;
  /** A reversal left this account owing: its leases must stop spending now. */
  owingAccountId?: bigint;
}

/**
 * Applies one verified Stripe event exactly once. The event row, the ledger posting and the
 * session's new state commit together, so a retried or concurrent delivery either finds the
 * event already recorded or the session already credited, never a half-applied one.
 */
export async function applyStripeEvent(database: Database, event: Stripe.Event): Promise<StripeEventResult> {
  return database.transaction(async (transaction) => {
    const inserted = await transaction
      .insert(stripeEvents)
      .values({
        id: event.id,
        type: event.type,
        outcome: "recorded",
        payload: event.data.object as unknown as Record<string, unknown>,
      })
      .onConflictDoNothing()
      .returning({ id: stripeEvents.id });
    if (!inserted[0]) return { outcome: "duplicate" };
    const result = await dispatch(transaction, event);
    await transaction
      .update(stripeEvents)
      .set({ outcome: result.outcome, reason: result.reason ?? null, sessionId: result.sessionId ?? null })
      .where(eq(stripeEvents.id, event.id));
    return result;
  });
}

async function dispatch(transaction: Executor, event: Stripe.Event): Promise<StripeEventResult> {
  switch (event.type) {
    case "checkout.session.completed": {
      const session = event.data.object;
      // Delayed methods (bank debits) complete unpaid; async_payment_succeeded follows.
      if (session.payment_status !== "paid")
        return {
          outcome: "recorded",
          reason: `payment_status ${session.payment_status}`,
          sessionId: session.id,
        };
      return creditSession(transaction, event, session);
    }
    case "checkout.session.async_payment_succeeded":
      return creditSession(transaction, event, event.data.object);
    case "checkout.session.async_payment_failed":
      return closeSession(transaction, event.data.object.id, "failed");
    case "checkout.session.expired":
      return closeSession(transaction, event.data.object.id, "expired");
    case "charge.refunded": {
      const charge = event.data.object;
      return reverseCredit(transaction, event, "stripe_refund", charge, charge.amount_refunded);
    }
    case "charge.dispute.created": {
      const dispute = event.data.object;
      return reverseCredit(transaction, event, "stripe_dispute", dispute, dispute.amount);
    }
    case "charge.dispute.closed": {
      const dispute = event.data.object;
      if (dispute.status !== "won") return { outcome: "recorded", reason: `dispute ${dispute.status}` };
      return reinstateDispute(transaction, event, dispute.id);
    }
    default:
      return { outcome: "ignored", reason: "event type not used" };
  }
}

async function lockSession(transaction: Executor, column: "id" | "payment_intent_id", value: string) {
  const rows = await queryRows<{ id: string }>(
    transaction,
    sql`SELECT id FROM card_sessions WHERE ${sql.identifier(column)} = ${value} FOR UPDATE`,
  );
  const id = rows[0]?.id;
  if (!id) return undefined;
  const [row] = await transaction.select().from(cardSessions).where(eq(cardSessions.id, id));
  return row;
}

async function creditSession(
  transaction: Executor,
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
): Promise<StripeEventResult> {
  const sessionId = session.id;
  const row = await lockSession(transaction, "id", sessionId);
  if (!row) return { outcome: "parked", reason: "unknown_session", sessionId };
  if (row.status === "credited") return { outcome: "ignored", reason: "already_credited", sessionId };
  if (session.currency !== row.currency || BigInt(session.amount_total ?? -1) !== row.amountTotal) {
    return {
      outcome: "parked",
      reason: `amount_mismatch: expected ${row.amountTotal} ${row.currency}, got ${session.amount_total} ${session.currency}`,
      sessionId,
    };
  }
  if (session.metadata?.pod_account_id !== row.accountId.toString())
    return { outcome: "parked", reason: "account_mismatch", sessionId };
  const [token] = await transaction
    .select({ id: apiTokens.id, accountId: apiTokens.accountId })
    .from(apiTokens)
    .where(eq(apiTokens.id, row.tokenId));
  if (!token || token.accountId !== row.accountId)
    return { outcome: "parked", reason: "unknown_token", sessionId };
  const paymentIntentId = idOf(session.payment_intent);
  const posted = await postTokenCredit(transaction, {
    tokenId: token.id,
    accountId: token.accountId,
    amount: row.creditMicrounits,
    kind: "card_credit",
    source: systemAccounts.stripe,
    // One credit per session, whichever of completed / async_payment_succeeded arrives.
    idempotencyKey: `stripe:checkout:${sessionId}`,
    metadata: {
      reason: "card payment",
      stripe_session_id: sessionId,
      stripe_event_id: event.id,
      stripe_payment_intent_id: paymentIntentId,
      amount_total: Number(row.amountTotal),
      fee_amount: Number(row.feeAmount),
      currency: row.currency,
    },
  });
  await transaction
    .update(cardSessions)
    .set({ status: "credited", paymentIntentId, creditedAt: new Date() })
    .where(eq(cardSessions.id, sessionId));
  return posted.type === "posted"
    ? { outcome: "credited", sessionId }
    : { outcome: "ignored", reason: "already_credited", sessionId };
}

async function closeSession(
  transaction: Executor,
  sessionId: string,
  status: "expired" | "failed",
): Promise<StripeEventResult> {
  const updated = await transaction
    .update(cardSessions)
    .set({ status })
    .where(sql`${cardSessions.id} = ${sessionId} AND ${cardSessions.status} = 'open'`)
    .returning({ id: cardSessions.id });
  return updated[0]
    ? { outcome: "recorded", reason: status, sessionId }
    : { outcome: "ignored", reason: "session unknown or not open", sessionId };
}

type ReversalSource = "stripe_refund" | "stripe_dispute";

const reversals: Record<
  ReversalSource,
  { kind: "card_refund" | "card_dispute"; reason: string; cumulative: boolean }
> = {
  // A charge's refunded amount is the total so far; a dispute stands on its own.
  stripe_refund: { kind: "card_refund", reason: "card payment refunded", cumulative: true },
  stripe_dispute: { kind: "card_dispute", reason: "card payment disputed", cumulative: false },
};

/**
 * Takes back the credited share of a refund or dispute, up to the token's available
 * balance; what it cannot cover becomes a receivable, since a balance never goes negative.
 */
async function reverseCredit(
  transaction: Executor,
  event: Stripe.Event,
  source: ReversalSource,
  /** The charge or dispute: the payment it reverses and the currency of its amount. */
  against: { payment_intent: string | { id: string } | null; currency: string },
  /** How much of the payment this event takes back, in the currency's minor unit. */
  amountMinor: number,
): Promise<StripeEventResult> {
  const reversal = reversals[source];
  const paymentIntentId = idOf(against.payment_intent);
  if (!paymentIntentId) return { outcome: "parked", reason: "no_payment_intent" };
  // A Checkout session or an auto top-up charge: every card payment the gateway creates.
  const payment = await lockPaymentByIntent(transaction, paymentIntentId);
  if (!payment) return { outcome: "parked", reason: "unknown_payment" };
  const sessionId = payment.ref;
  // The stolen-card pattern: a disputed account's saved card is not charged again until an operator clears it.
  if (source === "stripe_dispute") await suspendAutoTopUp(transaction, payment.tokenId, event.id);
  if (!payment.credited) return { outcome: "parked", reason: "session_not_credited", sessionId };
  if (against.currency !== payment.currency)
    return { outcome: "parked", reason: "currency_mismatch", sessionId };
  const share = shareOf(payment, BigInt(amountMinor));
  const due = minBigint(
    reversal.cumulative ? share - payment.reversedMicrounits : share,
    payment.creditMicrounits - payment.reversedMicrounits,
  );
  if (due <= 0n) return { outcome: "recorded", reason: "nothing left to reverse", sessionId };

  const balances = await queryRows<{ balance: string | bigint; held: string | bigint }>(
    transaction,
    sql`SELECT balance, held FROM accounts WHERE id = ${payment.accountId} FOR UPDATE`,
  );
  const account = balances[0];
  const available = account ? BigInt(account.balance) - BigInt(account.held) : 0n;
  const taken = minBigint(due, available > 0n ? available : 0n);
  if (taken > 0n) {
    const stripeAccount = await ensureAccount(
      transaction,
      systemAccounts.stripe.kind,
      systemAccounts.stripe.ref,
    );
    await postTransaction(transaction, {
      kind: reversal.kind,
      idempotencyKey: `stripe:reversal:${event.id}`,
      metadata: {
        reason: payment.kind === "auto_top_up" ? `${reversal.reason} (auto top-up)` : reversal.reason,
        stripe_event_id: event.id,
        [refKeys[payment.kind]]: sessionId,
        stripe_payment_intent_id: paymentIntentId,
        receivable_microunits: Number(due - taken),
      },
      entries: [
        { accountId: payment.accountId, amount: -taken },
        { accountId: stripeAccount, amount: taken },
      ],
    });
  }
  if (due > taken) {
    // What leases and requests in flight hold comes back to the balance within seconds and is
    // collected then (lib/ledger/receivables.ts); what was already spent waits for new funding.
    await transaction.execute(
      sql`INSERT INTO receivables (account_id, amount_microunits, outstanding_microunits, source, reference, session_id)
          VALUES (${payment.accountId}, ${due - taken}, ${due - taken}, ${source}, ${event.id}, ${sessionId})`,
    );
  }
  await setReversed(transaction, payment, payment.reversedMicrounits + due);
  return {
    outcome: "reversed",
    sessionId,
    ...(due > taken ? { reason: `receivable ${due - taken}`, owingAccountId: payment.accountId } : {}),
  };
}

/**
 * A dispute decided for the payer (`charge.dispute.closed`, status won): the card payment
 * stands again, so the token gets back what the dispute took, at once and from later
 * collections of its receivable, and the rest of that receivable is forgiven. Once per dispute.
 */
async function reinstateDispute(
  transaction: Executor,
  event: Stripe.Event,
  disputeId: string,
): Promise<StripeEventResult> {
  const [opened] = await queryRows<{ id: string }>(
    transaction,
    sql`SELECT id FROM stripe_events WHERE type = 'charge.dispute.created' AND payload->>'id' = ${disputeId}`,
  );
  if (!opened) return { outcome: "parked", reason: "unknown_dispute" };
  const [reversal] = await queryRows<{ taken: string | null; session_id: string | null }>(
    transaction,
    sql`SELECT (-SUM(e.amount) FILTER (WHERE a.kind = 'token'))::text AS taken,
               COALESCE(t.metadata->>'stripe_session_id', t.metadata->>'stripe_auto_top_up_charge_id') AS session_id
        FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id JOIN accounts a ON a.id = e.account_id
        WHERE t.idempotency_key = ${`stripe:reversal:${opened.id}`} GROUP BY t.id`,
  );
  const [receivable] = await queryRows<{
    id: string;
    collected: string;
    amount: string;
    session_id: string | null;
  }>(
    transaction,
    sql`SELECT id::text AS id, (amount_microunits - outstanding_microunits)::text AS collected,
               amount_microunits::text AS amount, session_id
        FROM receivables WHERE reference = ${opened.id} FOR UPDATE`,
  );
  const sessionId = reversal?.session_id ?? receivable?.session_id ?? null;
  if (!sessionId) return { outcome: "parked", reason: "dispute_not_reversed" };
  const session = await lockPaymentByRef(transaction, sessionId);
  if (!session) return { outcome: "parked", reason: "unknown_session" };
  const returned = BigInt(reversal?.taken ?? "0") + BigInt(receivable?.collected ?? "0");
  if (receivable)
    await transaction.execute(
      sql`UPDATE receivables SET outstanding_microunits = 0, status = 'won' WHERE id = ${receivable.id}`,
    );
  const reversed = BigInt(reversal?.taken ?? "0") + BigInt(receivable?.amount ?? "0");
  await setReversed(transaction, session, session.reversedMicrounits - reversed);
  if (returned > 0n) {
    await postTokenCredit(transaction, {
      tokenId: session.tokenId,
      accountId: session.accountId,
      amount: returned,
      kind: "card_dispute_won",
      source: systemAccounts.stripe,
      idempotencyKey: `stripe:dispute-won:${disputeId}`,
      metadata: {
        reason: "card dispute decided for you: the payment stands",
        stripe_event_id: event.id,
        stripe_dispute_id: disputeId,
        [refKeys[session.kind]]: sessionId,
      },
    });
  }
  const caughtUp = await takeRefundsMadeDuringDispute(
    transaction,
    event,
    session,
    session.reversedMicrounits - reversed,
  );
  return {
    outcome: "reinstated",
    reason: caughtUp > 0n ? `returned ${returned}, refunded meanwhile ${caughtUp}` : `returned ${returned}`,
    sessionId,
  };
}

/**
 * A refund that arrived while the dispute was open found the payment already taken back and
 * booked nothing (Stripe allows it on disputes that leave the charge refundable, such as
 * inquiries). With the payment standing again, what was refunded meanwhile is taken now, from
 * the balance or as a receivable, like any refund.
 */
async function takeRefundsMadeDuringDispute(
  transaction: Executor,
  event: Stripe.Event,
  session: ReversiblePayment,
  /** The session's reversed total once the dispute's part is undone. */
  reversedNow: bigint,
): Promise<bigint> {
  if (!session.paymentIntentId) return 0n;
  const [refunded] = await queryRows<{ amount: string | null }>(
    transaction,
    sql`SELECT MAX((payload->>'amount_refunded')::bigint)::text AS amount FROM stripe_events
        WHERE type = 'charge.refunded'
          AND coalesce(payload->>'payment_intent', payload->'payment_intent'->>'id') = ${session.paymentIntentId}`,
  );
  if (!refunded?.amount) return 0n;
  const result = await reverseCredit(
    transaction,
    event,
    "stripe_refund",
    { payment_intent: session.paymentIntentId, currency: session.currency },
    Number(refunded.amount),
  );
  if (result.outcome !== "reversed") return 0n;
  const after = await lockPaymentByRef(transaction, session.ref);
  return (after?.reversedMicrounits ?? reversedNow) - reversedNow;
}

/** The part of the credit a payer-side amount stands for (the fee is paid back pro rata too), rounded up. */
export function shareOf(
  session: Pick<ReversiblePayment, "amountTotal" | "creditMicrounits">,
  amountMinor: bigint,
): bigint {
  if (session.amountTotal <= 0n) return 0n;
  const share = (session.creditMicrounits * amountMinor + session.amountTotal - 1n) / session.amountTotal;
  return minBigint(share, session.creditMicrounits);
}

function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === "string" ? value : value.id;
}
