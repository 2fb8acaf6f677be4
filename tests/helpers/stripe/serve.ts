import { parseArgs } from "node:util";
import { startFakeStripe } from "./fake-stripe";

/**
 * Standalone Stripe fake for offline trials of card funding:
 *   npx tsx tests/helpers/stripe/serve.ts --port 12111 --secret whsec_local \
 *     --webhook http://127.0.0.1:3000/v1/webhooks/stripe
 * then start the gateway with STRIPE_API_BASE=http://127.0.0.1:12111, STRIPE_SECRET_KEY=sk_test_local,
 * STRIPE_PUBLISHABLE_KEY=pk_test_local and STRIPE_WEBHOOK_SECRET=whsec_local. A checkout_url
 * opens the fake's hosted page; its Pay button sends the signed webhook.
 */

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "12111" },
    secret: { type: "string", default: "whsec_local" },
    webhook: { type: "string", default: "http://127.0.0.1:3000/v1/webhooks/stripe" },
  },
});

const stripe = await startFakeStripe({
  port: Number(values.port),
  webhookSecret: values.secret,
  webhookUrl: values.webhook,
});
console.log(`fake stripe api: ${stripe.apiBase} (webhooks to ${values.webhook}, secret ${values.secret})`);

const shutdown = () => {
  stripe.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
