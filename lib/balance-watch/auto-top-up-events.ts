import type Stripe from "stripe";
import type { Database } from "../db/client";
import { log } from "../log";
import { creditTopUp, saveCardFromSetup } from "./auto-top-up";

/**
 * The verified Stripe events auto top-up acts on: a completed setup-mode Checkout saves the
 * card; a succeeded off-session payment intent credits its top-up (if the API's answer has not
 * already). Both are idempotent, so a redelivery changes nothing. Other events pass.
 */
export async function applyAutoTopUpEvent(
  database: Database,
  stripe: Stripe,
  event: Stripe.Event,
): Promise<void> {
  if (event.type === "checkout.session.completed" && event.data.object.mode === "setup") {
    const saved = await saveCardFromSetup(database, stripe, event.data.object);
    if (saved !== "saved")
      log.warn("setup session not ours", { event: event.id, session: event.data.object.id });
    return;
  }
  if (event.type === "payment_intent.succeeded" && event.data.object.metadata?.pod_auto_top_up_charge) {
    // Read back with its charge, for the receipt link (the event carries the charge's id only).
    const intent = await stripe.paymentIntents.retrieve(event.data.object.id, { expand: ["latest_charge"] });
    await creditTopUp(database, intent);
  }
}
