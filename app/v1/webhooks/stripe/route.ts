// POST /v1/webhooks/stripe – Stripe's signed events (card credits, refunds, disputes)
import { handleStripeWebhook } from "@/lib/handlers/stripe-webhook";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request) => handleStripeWebhook(app, request));
