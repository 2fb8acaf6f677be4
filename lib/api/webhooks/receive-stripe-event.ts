import type Stripe from "stripe";
import { applyAutoTopUpEvent } from "../../balance-watch/auto-top-up-events";
import { badRequest, GatewayError } from "../../errors/gateway-error";
import { applyStripeEvent } from "../../funding/apply-stripe-event";
import { cardSettings } from "../../funding/card-settings";
import { readBodyText } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { log } from "../../log";
import type { ApiCall } from "../route-definition";

/**
 * POST /v1/webhooks/stripe – Stripe's signed events. Only a payload whose Stripe-Signature
 * verifies against STRIPE_WEBHOOK_SECRET (within Stripe's 5-minute tolerance, and dated no
 * later than a minute of clock skew from now: the library alone accepts any future date) is applied.
 * Anything that cannot be applied is parked with a reason and still acknowledged, so Stripe
 * stops retrying; a crash mid-way answers 500 and the retry applies it once.
 */
export async function receiveStripeEvent(call: ApiCall<"none">): Promise<Response> {
  const { app, request } = call;
  const card = cardSettings(app.env);
  if (!card.enabled) throw new GatewayError("not_found", card.reason);
  const signature = request.headers.get("stripe-signature");
  if (!signature) throw badRequest("missing Stripe-Signature header");
  const payload = await readBodyText(request, call.bodyLimit);
  if (signedInTheFuture(signature)) throw badRequest("invalid Stripe signature: dated in the future");
  let event: Stripe.Event;
  try {
    event = card.stripe.webhooks.constructEvent(payload, signature, card.webhookSecret);
  } catch {
    throw badRequest("invalid Stripe signature");
  }
  // Auto top-up's events (a saved card, an off-session charge) first: each applies once by itself.
  await applyAutoTopUpEvent(app.database.db, card.stripe, event);
  const result = await applyStripeEvent(app.database.db, event);
  // This process's lease stops spending now; other replicas see the receivable within a second.
  if (result.owingAccountId !== undefined) app.leases?.block(result.owingAccountId);
  if (result.outcome === "parked")
    log.warn("stripe event parked", { event: event.id, type: event.type, reason: result.reason });
  return jsonResponse({
    received: true,
    event_id: event.id,
    outcome: result.outcome,
    reason: result.reason ?? null,
  });
}

const clockSkewSeconds = 60;

/** A signature dated ahead of now would stay valid for as long as its date is ahead: a replay window. */
function signedInTheFuture(header: string): boolean {
  const stamp = /(?:^|,)\s*t=(\d{1,12})(?:,|$)/.exec(header)?.[1];
  return stamp !== undefined && Number(stamp) > Math.floor(Date.now() / 1000) + clockSkewSeconds;
}
