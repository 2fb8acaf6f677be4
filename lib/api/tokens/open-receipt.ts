import { sql } from "drizzle-orm";
import Stripe from "stripe";
import { queryRows } from "../../db/client";
import { GatewayError } from "../../errors/gateway-error";
import { cardSettings } from "../../funding/card-settings";
import { requireScope } from "../../tokens/key-scopes";
import type { ApiCall } from "../route-definition";

/**
 * GET /proxy/<token>/transactions/<id>/receipt – Stripe's receipt of a card credit on this
 * token: a redirect to the receipt page Stripe hosts. Only the token's own card credits have
 * one; anything else is a 404 like an unknown id.
 */
export async function openReceipt(call: ApiCall<"token">): Promise<Response> {
  const { app, principal } = call;
  requireScope(principal, "read");
  const id = call.params.id ?? "";
  const notFound = new GatewayError("not_found", "not found: no card payment with this id on this token");
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound;
  const [row] = await queryRows<{ metadata: Record<string, unknown> }>(
    app.database.db,
    sql`SELECT t.metadata FROM ledger_transactions t
        WHERE t.id = ${id} AND t.kind IN ('card_credit', 'card_auto_top_up')
          AND EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id AND e.account_id = ${principal.accountId})`,
  );
  if (!row) throw notFound;
  let url = typeof row.metadata.receipt_url === "string" ? row.metadata.receipt_url : undefined;
  const intentId = row.metadata.stripe_payment_intent_id;
  const card = cardSettings(app.env);
  if (url === undefined && typeof intentId === "string" && card.enabled) {
    try {
      const intent = await card.stripe.paymentIntents.retrieve(intentId, { expand: ["latest_charge"] });
      const charge = intent.latest_charge;
      if (typeof charge === "object" && charge?.receipt_url) url = charge.receipt_url;
    } catch (error) {
      if (error instanceof Stripe.errors.StripeError && error.statusCode === 404) throw notFound;
      throw new GatewayError(
        "upstream_error",
        "the receipt could not be read from Stripe; try again shortly",
        {
          cause: error,
        },
      );
    }
  }
  // Only Stripe's own https receipt pages (or the configured Stripe API's host, in tests).
  if (url === undefined || !/^https?:\/\//.test(url)) throw notFound;
  return new Response(null, { status: 302, headers: { location: url, "cache-control": "no-store" } });
}
