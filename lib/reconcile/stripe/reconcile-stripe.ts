import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Executor } from "../../db/client";
import { queryRows } from "../../db/client";
import { shareOf } from "../../funding/apply-stripe-event";
import type { Difference } from "../core/difference";

interface SessionRow {
  id: string;
  payment_intent_id: string | null;
  amount_total: string;
  credit: string;
  booked: string;
}

const idOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : (value as { id?: string } | null)?.id;

/** What a payment should net on the token's ledger: its credit less what was reversed (never more than the credit). */
function netOf(credit: bigint, shares: { refunded: bigint; disputed: bigint }, bookedText: string | number) {
  const taken = shares.refunded + shares.disputed;
  const reversed = taken < credit ? taken : credit;
  return { reversed, expected: credit - reversed, booked: BigInt(bookedText) };
}

/**
 * Card money against Stripe's own records: for every card session, what Stripe says it is
 * worth to the token now (credited when Stripe says it was paid, less the refunded share and
 * the disputes not won, per Stripe's event log) against what the token's ledger booked for
 * it (credits, reversals, collections of its receivables, and what is still owed as one).
 */
export async function reconcileStripe(executor: Executor, stripe: Stripe): Promise<Difference[]> {
  const events: Stripe.Event[] = [];
  for await (const event of stripe.events.list({ limit: 100 })) events.push(event);
  const sessions = await queryRows<SessionRow>(
    executor,
    sql`SELECT s.id, s.payment_intent_id, s.amount_total::text AS amount_total, s.credit_microunits::text AS credit,
          (COALESCE((SELECT SUM(e.amount) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                     JOIN accounts a ON a.id = e.account_id
                     WHERE a.kind = 'token' AND t.metadata->>'stripe_session_id' = s.id
                       AND t.kind IN ('card_credit', 'card_refund', 'card_dispute', 'card_dispute_won')), 0)
         + COALESCE((SELECT SUM(e.amount) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                     JOIN accounts a ON a.id = e.account_id JOIN receivables r ON r.id::text = t.metadata->>'receivable_id'
                     WHERE a.kind = 'token' AND t.kind = 'receivable_collected' AND r.session_id = s.id), 0)
         - COALESCE((SELECT SUM(r.outstanding_microunits) FROM receivables r
                     WHERE r.session_id = s.id AND r.status = 'open'), 0))::text AS booked
        FROM card_sessions s`,
  );
  const differences: Difference[] = [];
  for (const row of sessions) {
    const remote = await stripe.checkout.sessions.retrieve(row.id).catch(() => undefined);
    const terms = { amountTotal: BigInt(row.amount_total), creditMicrounits: BigInt(row.credit) };
    const paid = remote?.payment_status === "paid";
    const credit = paid ? BigInt(remote?.metadata?.pod_credit_microunits ?? "0") : 0n;
    const intent = row.payment_intent_id ?? idOf(remote?.payment_intent);
    const { reversed, expected, booked } = netOf(credit, reversedShares(events, intent, terms), row.booked);
    if (expected !== booked)
      differences.push({
        source: "stripe",
        reference: row.id,
        microunits: expected - booked,
        detail: `Stripe: ${paid ? "paid" : "not paid"}, credit ${credit}, reversed ${reversed}; the token's ledger nets ${booked}`,
      });
  }
  differences.push(...(await reconcileAutoTopUps(executor, stripe, events)));
  return differences;
}

/** What Stripe's event log says was refunded and disputed (not won) of one payment intent, as shares of its credit. */
function reversedShares(
  events: Stripe.Event[],
  intent: string | undefined,
  terms: { amountTotal: bigint; creditMicrounits: bigint },
): { refunded: bigint; disputed: bigint } {
  let refunded = 0n;
  let disputed = 0n;
  const won = new Set(
    events
      .filter((event) => event.type === "charge.dispute.closed")
      .map((event) => event.data.object as Stripe.Dispute)
      .filter((dispute) => dispute.status === "won")
      .map((dispute) => dispute.id),
  );
  for (const event of events) {
    const object = event.data.object as { payment_intent?: unknown };
    if (!intent || idOf(object.payment_intent) !== intent) continue;
    if (event.type === "charge.refunded") {
      const share = shareOf(terms, BigInt((object as Stripe.Charge).amount_refunded));
      if (share > refunded) refunded = share;
    } else if (event.type === "charge.dispute.created") {
      const dispute = object as Stripe.Dispute;
      if (!won.has(dispute.id)) disputed += shareOf(terms, BigInt(dispute.amount));
    }
  }
  return { refunded, disputed };
}

/**
 * Auto top-up charges (off-session payment intents) the same way: what Stripe says each is
 * worth to the token now (its credit when the intent succeeded, less refunds and disputes not
 * won) against what the ledger booked for it.
 */
async function reconcileAutoTopUps(
  executor: Executor,
  stripe: Stripe,
  events: Stripe.Event[],
): Promise<Difference[]> {
  const charges = await queryRows<{
    id: string;
    intent: string;
    amount: string;
    credit: string;
    booked: string;
  }>(
    executor,
    sql`SELECT c.id::text AS id, c.payment_intent_id AS intent, c.amount_cents::text AS amount,
               c.credit_microunits::text AS credit,
          (COALESCE((SELECT SUM(e.amount) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                     JOIN accounts a ON a.id = e.account_id
                     WHERE a.kind = 'token' AND (
                       (t.kind = 'card_auto_top_up' AND t.metadata->>'stripe_payment_intent_id' = c.payment_intent_id)
                       OR (t.kind IN ('card_refund', 'card_dispute', 'card_dispute_won')
                           AND t.metadata->>'stripe_auto_top_up_charge_id' = c.id::text))), 0)
         + COALESCE((SELECT SUM(e.amount) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                     JOIN accounts a ON a.id = e.account_id JOIN receivables r ON r.id::text = t.metadata->>'receivable_id'
                     WHERE a.kind = 'token' AND t.kind = 'receivable_collected' AND r.session_id = c.id::text), 0)
         - COALESCE((SELECT SUM(r.outstanding_microunits) FROM receivables r
                     WHERE r.session_id = c.id::text AND r.status = 'open'), 0))::text AS booked
        FROM auto_top_up_charges c WHERE c.payment_intent_id IS NOT NULL`,
  );
  const differences: Difference[] = [];
  for (const row of charges) {
    const remote = await stripe.paymentIntents.retrieve(row.intent);
    const paid = remote.status === "succeeded";
    const terms = { amountTotal: BigInt(row.amount), creditMicrounits: BigInt(row.credit) };
    const credit = paid ? terms.creditMicrounits : 0n;
    const { reversed, expected, booked } = netOf(
      credit,
      reversedShares(events, row.intent, terms),
      row.booked,
    );
    if (expected !== booked)
      differences.push({
        source: "stripe",
        reference: row.intent,
        microunits: expected - booked,
        detail: `Stripe (auto top-up ${row.id}): ${paid ? "paid" : `payment ${remote.status}`}, credit ${credit}, reversed ${reversed}; the token's ledger nets ${booked}`,
      });
  }
  return differences;
}
