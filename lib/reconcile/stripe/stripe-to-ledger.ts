import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Executor } from "../../db/client";
import { queryRows } from "../../db/client";
import type { Difference } from "../core/difference";

/** A cent is 10,000 microunits of USDC. */
const microunitsPerCent = 10_000n;

const idOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : (value as { id?: string } | null)?.id;

/**
 * Stripe's side first: every charge and refund the keys can list since the gateway's first
 * card payment must be one of its own payments (a Checkout session's or an auto top-up
 * charge's payment intent), or it is money Stripe moved that no token's ledger shows: a
 * difference of its full amount. The other direction (each of the gateway's payments against
 * Stripe) is `reconcileStripe`'s.
 */
export async function stripeToLedger(executor: Executor, stripe: Stripe): Promise<Difference[]> {
  const [first] = await queryRows<{ since: number | string | null }>(
    executor,
    sql`SELECT FLOOR(EXTRACT(EPOCH FROM MIN(created_at)))::bigint AS since FROM (
          SELECT created_at FROM card_sessions UNION ALL SELECT created_at FROM auto_top_up_charges) AS payments`,
  );
  if (first?.since === null || first?.since === undefined) return [];
  const period = { created: { gte: Number(first.since) }, limit: 100 };
  const known = new Set(
    (
      await queryRows<{ intent: string }>(
        executor,
        sql`SELECT payment_intent_id AS intent FROM card_sessions WHERE payment_intent_id IS NOT NULL
            UNION SELECT payment_intent_id FROM auto_top_up_charges WHERE payment_intent_id IS NOT NULL`,
      )
    ).map((row) => row.intent),
  );
  const differences: Difference[] = [];
  for await (const charge of stripe.charges.list(period)) {
    const intent = idOf(charge.payment_intent);
    if (charge.status !== "succeeded" || (intent !== undefined && known.has(intent))) continue;
    differences.push({
      source: "stripe",
      reference: charge.id,
      microunits: BigInt(charge.amount - charge.amount_refunded) * microunitsPerCent,
      detail: `Stripe charge ${charge.id}${intent ? ` (${intent})` : ""} of ${charge.amount} cents (${charge.amount_refunded} refunded) is no card payment of the gateway: no token's ledger has it`,
    });
  }
  for await (const refund of stripe.refunds.list(period)) {
    const intent = idOf(refund.payment_intent);
    if (refund.status === "failed" || refund.status === "canceled") continue;
    if (intent !== undefined && known.has(intent)) continue;
    // A refund of a charge already reported above is in that charge's figure (amount less refunded).
    if (differences.some((one) => one.reference === idOf(refund.charge))) continue;
    differences.push({
      source: "stripe",
      reference: refund.id,
      microunits: -BigInt(refund.amount) * microunitsPerCent,
      detail: `Stripe refund ${refund.id} of ${refund.amount} cents is of no card payment of the gateway: no token's ledger has it`,
    });
  }
  return differences;
}
