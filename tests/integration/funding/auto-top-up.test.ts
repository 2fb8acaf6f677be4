import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../../lib/db/client";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { findToken } from "../../../lib/tokens/find-token";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import { inferenceClient } from "../../helpers/inference-client";
import { reconcileOver, removeLedgerTransaction } from "../../helpers/reconcile";
import { type FakeStripe, startFakeStripe } from "../../helpers/stripe/fake-stripe";
import { isSignedBy, startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

/**
 * Low-balance alerts and auto top-up by card against the Stripe fake (its wire format, signed
 * webhooks), tried as an attacker would: a crowd of requests crossing the threshold at once
 * charges the card once; the monthly cap holds; a declined card turns auto top-up off; a
 * setup session that is not ours saves nothing; the alert is signed, sent once per crossing
 * and never to a private address unless the operator allows it.
 */

const webhookSecret = "whsec_test_auto_top_up";

let stripe: FakeStripe;
let gateway: TestGateway;
let hooks: WebhookReceiver;
let hookUrl = "";
let received: WebhookReceiver["received"] = [];

beforeAll(async () => {
  stripe = await startFakeStripe({ webhookSecret });
  gateway = await startTestGateway({
    lease: true,
    env: {
      STRIPE_SECRET_KEY: "sk_test_auto",
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PUBLISHABLE_KEY: "pk_test_auto",
      STRIPE_API_BASE: stripe.apiBase,
      BALANCE_ALERT_ALLOW_PRIVATE_URLS: "true",
    },
  });
  stripe.setWebhookUrl(`${gateway.baseUrl}/v1/webhooks/stripe`);
  hooks = await startWebhookReceiver("/pod-alerts");
  hookUrl = hooks.url;
  received = hooks.received;
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await stripe?.close();
  await hooks?.close();
});

async function call(token: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}${path}`, {
    ...init,
    headers: { "content-type": "application/json", ...init.headers },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Saves a card through the setup-mode Checkout, as the person's browser would. */
async function saveCard(token: string): Promise<void> {
  const setup = await call(token, "/auto-top-up/card", { method: "POST" });
  expect(setup.status, JSON.stringify(setup.body)).toBe(201);
  const delivery = await stripe.complete(String(setup.body.session_id));
  expect(delivery.status).toBe(200);
}

async function enable(token: string, settings: { threshold: number; amountCents: number; capCents: number }) {
  return call(token, "/auto-top-up", {
    method: "PUT",
    body: JSON.stringify({
      enabled: true,
      threshold_microunits: settings.threshold,
      amount_cents: settings.amountCents,
      monthly_cap_cents: settings.capCents,
    }),
  });
}

async function accountOf(token: string): Promise<bigint> {
  const record = await findToken(gateway.app.database.db, token);
  if (!record) throw new Error("unknown token");
  return record.accountId;
}

async function topUpCredits(token: string): Promise<number> {
  const rows = await queryRows<{ count: string }>(
    gateway.app.database.db,
    sql`SELECT count(*)::text AS count FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE e.account_id = ${await accountOf(token)} AND t.kind = 'card_auto_top_up'`,
  );
  return Number(rows[0]?.count ?? 0);
}

/** Waits for background checks (they run after the responses). */
async function settle(token: string): Promise<void> {
  await gateway.app.leases?.flush();
  await gateway.app.balanceWatch.schedule(await accountOf(token));
}

describe("auto top-up by card", () => {
  it("is off by default and needs a saved card to turn on", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const view = await call(token, "/auto-top-up");
    expect(view.body.auto_top_up).toMatchObject({ available: true, enabled: false, card: null });
    const refused = await enable(token, { threshold: 500_000, amountCents: 1_000, capCents: 5_000 });
    expect(refused.status).toBe(409);
  });

  it("charges the saved card once when a crowd of requests crosses the threshold, and shows the receipt", async () => {
    // $0.002 of balance, threshold $0.00185: sixty ~5 µ requests cross it half-way, all at once.
    const token = await gateway.createFundedToken(2_000n);
    await saveCard(token);
    const saved = await call(token, "/auto-top-up");
    expect(saved.body.auto_top_up).toMatchObject({ card: { brand: "visa", last4: "4242" } });
    const enabled = await enable(token, { threshold: 1_850, amountCents: 500, capCents: 5_000 });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    const client = inferenceClient(gateway, token);
    const before = stripe.paymentIntents.size;
    await Promise.all(
      Array.from({ length: 60 }, async (_, index) => {
        const response = await client.chat({ maxTokens: 3, content: `r${index} [fake:tokens=3]` });
        await response.text();
      }),
    );
    // Every check the crowd's charges started has run (the watcher says so), then one more.
    await gateway.app.balanceWatch.idle();
    await settle(token);
    expect(stripe.paymentIntents.size - before).toBe(1);
    expect(await topUpCredits(token)).toBe(1);
    const intent = [...stripe.paymentIntents.values()].at(-1);
    expect(intent).toMatchObject({ amount: 500, status: "succeeded" });
    const request = stripe.requests.findLast((entry) => entry.path === "/v1/payment_intents");
    expect(request?.body).toMatchObject({ off_session: "true", confirm: "true", amount: "500" });
    expect(request?.idempotencyKey).toMatch(/^pod-auto-top-up-/);
    // The webhook that follows the charge does not credit it again: it was answered, and counted nothing.
    const webhook = await stripe.delivered("payment_intent.succeeded", String(intent?.id));
    expect(webhook.status).toBe(200);
    expect(await topUpCredits(token)).toBe(1);
    const view = (await call(token, "/auto-top-up")).body.auto_top_up as {
      charged_this_month_cents: number;
      charges: { status: string; receipt_url: string | null }[];
    };
    expect(view.charged_this_month_cents).toBe(500);
    expect(view.charges[0]?.status).toBe("succeeded");
    expect(view.charges[0]?.receipt_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/receipts\/ch_/);
    expect((await fetch(view.charges[0]?.receipt_url ?? "")).status).toBe(200);
    const balance = await gateway.balanceOf(token);
    expect(balance.balance).toBeGreaterThan(5_000_000n);
  }, 90_000);

  it("charges again only after the balance was back above the threshold, and never past the monthly cap", async () => {
    const token = await gateway.createFundedToken(1_000n);
    await saveCard(token);
    // $5 a top-up, $7 a month: the second top-up would pass the cap.
    await enable(token, { threshold: 5_100_000, amountCents: 500, capCents: 700 });
    await settle(token);
    expect(await topUpCredits(token)).toBe(1);
    // $5.001 now, still below the $5.10 threshold: no second charge for the same crossing.
    await inferenceClient(gateway, token).chat({ maxTokens: 3 });
    await settle(token);
    expect(await topUpCredits(token)).toBe(1);
    const view = (await call(token, "/auto-top-up")).body.auto_top_up as { charged_this_month_cents: number };
    expect(view.charged_this_month_cents).toBe(500);
    // Re-armed above, crossing again: the cap refuses the charge.
    await call(token, "/auto-top-up", {
      method: "PUT",
      body: JSON.stringify({
        enabled: true,
        threshold_microunits: 5_000_000,
        amount_cents: 500,
        monthly_cap_cents: 700,
      }),
    });
    await gateway.credit(token, 1_000_000n);
    await settle(token);
    await call(token, "/auto-top-up", {
      method: "PUT",
      body: JSON.stringify({
        enabled: true,
        threshold_microunits: 9_000_000,
        amount_cents: 500,
        monthly_cap_cents: 700,
      }),
    });
    await settle(token);
    expect(await topUpCredits(token)).toBe(1);
  }, 60_000);

  /** The payment intent of the token's last auto top-up charge. */
  async function lastIntent(token: string): Promise<string> {
    const rows = await queryRows<{ intent: string }>(
      gateway.app.database.db,
      sql`SELECT payment_intent_id AS intent FROM auto_top_up_charges
          WHERE token_id = (SELECT id FROM api_tokens WHERE id = ${(await findToken(gateway.app.database.db, token))?.id ?? ""})
          ORDER BY created_at DESC LIMIT 1`,
    );
    return rows[0]?.intent ?? "";
  }

  const outcomeOf = (delivery: { body: string }) =>
    JSON.parse(delivery.body) as { outcome: string; reason?: string | null };

  it("a dispute of an auto top-up charge claws it back (balance, then receivable), suspends auto top-up until the operator clears it; won, it comes back", async () => {
    const token = await gateway.createFundedToken(1_000n);
    await saveCard(token);
    await enable(token, { threshold: 5_100_000, amountCents: 500, capCents: 5_000 });
    await settle(token);
    expect(await topUpCredits(token)).toBe(1);
    const intent = await lastIntent(token);
    expect(intent).toMatch(/^pi_/);
    // The stolen-card pattern: the credit is being spent (a request in flight holds part of it) when the charge-back lands.
    const inFlight = inferenceClient(gateway, token).chat({ maxTokens: 3, content: "slow [fake:hang=1500]" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = await gateway.balanceOf(token);
    const disputed = outcomeOf(await stripe.dispute(intent));
    expect(disputed.outcome).toBe("reversed");
    const after = await gateway.balanceOf(token);
    const taken = before.balance - after.balance;
    const receivable = BigInt(/receivable (\d+)/.exec(disputed.reason ?? "")?.[1] ?? "0");
    // Balance first, a receivable for the rest: the whole $5 credit is claimed back.
    expect(taken + receivable).toBe(5_000_000n);
    expect(taken).toBeGreaterThan(0n);
    await (await inFlight).text();

    // Suspended: the next crossing charges nothing, and the owner cannot turn it back on alone.
    const view = (await call(token, "/auto-top-up")).body.auto_top_up as {
      suspended: { reason: string } | null;
    };
    expect(view.suspended?.reason).toMatch(/card dispute/);
    const charges = stripe.paymentIntents.size;
    await enable(token, { threshold: 9_000_000, amountCents: 500, capCents: 5_000 });
    await settle(token);
    expect(stripe.paymentIntents.size).toBe(charges);

    // Won: what was taken comes back and the rest of the receivable is forgiven.
    const won = outcomeOf(await stripe.closeDispute(intent, "won"));
    expect(won.outcome).toBe("reinstated");
    await gateway.app.leases?.returnAll();
    expect((await gateway.balanceOf(token)).balance).toBeGreaterThanOrEqual(before.balance - 1_000n);
    // Still suspended until the operator clears it; then the saved card is charged again.
    await settle(token);
    expect(stripe.paymentIntents.size).toBe(charges);
    const resumed = await fetch(`${gateway.baseUrl}/v1/admin/auto-top-up/resume`, {
      method: "POST",
      headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ api_token: token, reason: "dispute reviewed" }),
    });
    expect(((await resumed.json()) as { resumed: boolean }).resumed).toBe(true);
    await enable(token, { threshold: 9_000_000, amountCents: 500, capCents: 5_000 });
    await settle(token);
    expect(stripe.paymentIntents.size).toBe(charges + 1);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  }, 90_000);

  it("a refund of an auto top-up charge takes its share back, once, like a Checkout refund", async () => {
    const token = await gateway.createFundedToken(1_000n);
    await saveCard(token);
    await enable(token, { threshold: 5_100_000, amountCents: 500, capCents: 5_000 });
    await settle(token);
    const intent = await lastIntent(token);
    await gateway.app.leases?.returnAll();
    const before = (await gateway.balanceOf(token)).balance;
    expect(outcomeOf(await stripe.refund(intent, 200)).outcome).toBe("reversed");
    expect((await gateway.balanceOf(token)).balance).toBe(before - 2_000_000n);
    // A replayed event changes nothing; the rest of the refund takes the rest.
    expect(outcomeOf(await stripe.deliver(JSON.stringify(stripe.events.at(-1)))).outcome).toBe("duplicate");
    expect(outcomeOf(await stripe.refund(intent)).outcome).toBe("reversed");
    expect((await gateway.balanceOf(token)).balance).toBe(before - 5_000_000n);
    const rows = await queryRows<{ reversed: string }>(
      gateway.app.database.db,
      sql`SELECT reversed_microunits::text AS reversed FROM auto_top_up_charges WHERE payment_intent_id = ${intent}`,
    );
    expect(rows[0]?.reversed).toBe("5000000");
  }, 60_000);

  it("a declined card is charged once, turns auto top-up off and says why", async () => {
    const token = await gateway.createFundedToken(1_000n);
    stripe.setNextCard({ brand: "mastercard", last4: "0341", declines: true });
    try {
      await saveCard(token);
    } finally {
      stripe.setNextCard({ brand: "visa", last4: "4242", declines: false });
    }
    await enable(token, { threshold: 500_000, amountCents: 500, capCents: 5_000 });
    await settle(token);
    await settle(token);
    const view = (await call(token, "/auto-top-up")).body.auto_top_up as {
      enabled: boolean;
      last_error: string;
      charges: { status: string; failure: string }[];
    };
    expect(view.enabled).toBe(false);
    expect(view.last_error).toContain("declined");
    expect(view.charges.map((charge) => charge.status)).toEqual(["failed"]);
    expect(await topUpCredits(token)).toBe(0);
  });

  it("a setup session the gateway did not open saves no card, and a forged event is refused", async () => {
    const token = await gateway.createFundedToken(1_000n);
    await call(token, "/auto-top-up/card", { method: "POST" });
    const forged = await stripe.sendEvent("checkout.session.completed", {
      id: "cs_test_not_ours",
      object: "checkout.session",
      mode: "setup",
      status: "complete",
      customer: "cus_test_someone_else",
      setup_intent: "seti_test_x",
    });
    expect(forged.status).toBe(200);
    const unsigned = await stripe.deliver(JSON.stringify({ id: "evt_x", type: "payment_intent.succeeded" }), {
      secret: "whsec_wrong",
    });
    expect(unsigned.status).toBe(400);
    expect(((await call(token, "/auto-top-up")).body.auto_top_up as { card: unknown }).card).toBeNull();
  });

  it("only the token manages it: a key of the account is refused", async () => {
    const token = await gateway.createFundedToken(1_000n);
    const created = await call(token, "/keys", { method: "POST", body: JSON.stringify({ label: "app" }) });
    const key = String(created.body.api_key);
    expect((await call(key, "/auto-top-up")).status).toBe(403);
    expect((await call(key, "/auto-top-up/card", { method: "POST" })).status).toBe(403);
    expect((await call(key, "/balance-alert")).status).toBe(403);
  });
});

describe("low-balance alerts", () => {
  it("sends one signed alert per crossing, re-arms above the threshold, and the banner state follows", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const set = await call(token, "/balance-alert", {
      method: "PUT",
      body: JSON.stringify({ threshold_microunits: 99_990, webhook_url: hookUrl }),
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const alert = set.body.alert as { webhook_secret: string; below: boolean };
    expect(alert.below).toBe(false);
    const start = received.length;
    const client = inferenceClient(gateway, token);
    await Promise.all(Array.from({ length: 20 }, async () => (await client.chat({ maxTokens: 3 })).text()));
    await settle(token);
    await settle(token);
    const mine = received.slice(start);
    expect(mine).toHaveLength(1);
    const delivery = mine[0];
    expect(isSignedBy(delivery, alert.webhook_secret)).toBe(true);
    expect(JSON.parse(delivery?.body ?? "{}")).toMatchObject({
      type: "balance.low",
      threshold_microunits: 99_990,
    });
    const view = (await call(token, "/balance-alert")).body.alert as { below: boolean; last_result: string };
    expect(view.below).toBe(true);
    expect(view.last_result).toContain("delivered");

    // Funded above the threshold, then below again: one more alert.
    await gateway.credit(token, 1_000n);
    await client.chat({ maxTokens: 3 });
    await settle(token);
    await client.chat({ maxTokens: 3 });
    await settle(token);
    await settle(token);
    expect(received.length - start).toBeGreaterThanOrEqual(1);
    expect(received.length - start).toBeLessThanOrEqual(2);
  }, 60_000);

  it("refuses webhook URLs to private addresses unless the operator allows them", async () => {
    const locked = await startTestGateway({});
    try {
      const token = await locked.createFundedToken(1_000n);
      for (const url of [
        "http://127.0.0.1:9/x",
        "https://169.254.169.254/latest",
        "https://localhost/x",
        "ftp://x.example",
      ]) {
        const response = await fetch(`${locked.baseUrl}/proxy/${token}/balance-alert`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ threshold_microunits: 500, webhook_url: url }),
        });
        expect(response.status, url).toBe(400);
      }
    } finally {
      await locked.close();
    }
  }, 60_000);
});

describe("reconciliation after every auto top-up test above", () => {
  it("matches every auto top-up charge against Stripe, and finds a reversal the ledger lost", async () => {
    const agreed = await reconcileOver(gateway);
    expect(agreed.differences).toEqual([]);
    expect(agreed.checked).toContain("stripe");
    const [reversal] = await queryRows<{ key: string; intent: string }>(
      gateway.app.database.db,
      sql`SELECT idempotency_key AS key, metadata->>'stripe_payment_intent_id' AS intent FROM ledger_transactions
          WHERE kind = 'card_refund' AND metadata ? 'stripe_auto_top_up_charge_id' LIMIT 1`,
    );
    if (!reversal) throw new Error("no auto top-up refund booked by the tests above");
    const restore = await removeLedgerTransaction(gateway.app.database.db, reversal.key);
    try {
      const found = await reconcileOver(gateway);
      // (The ledger check sees the balances no longer match their entries, too.)
      const stripeLines = found.differences.filter((one) => one.source === "stripe");
      expect(stripeLines.map((one) => one.reference)).toEqual([reversal.intent]);
      expect(Number(stripeLines[0]?.microunits)).toBeLessThan(0);
    } finally {
      await restore();
    }
  }, 60_000);
});
