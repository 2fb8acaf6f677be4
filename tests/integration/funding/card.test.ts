import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../../lib/db/client";
import { cardSessions, receivables, stripeEvents } from "../../../lib/db/schema";
import { placeHold, releaseHold } from "../../../lib/ledger/holds";
import { collectOpenReceivables } from "../../../lib/ledger/receivables";
import { findToken } from "../../../lib/tokens/find-token";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { reconcileCommand, reconcileOver } from "../../helpers/reconcile";
import { type FakeStripe, startFakeStripe } from "../../helpers/stripe/fake-stripe";

const webhookSecret = "whsec_test_funding";
const stripeEnv = (apiBase: string) => ({
  STRIPE_SECRET_KEY: "sk_test_funding",
  STRIPE_WEBHOOK_SECRET: webhookSecret,
  STRIPE_PUBLISHABLE_KEY: "pk_test_funding",
  STRIPE_API_BASE: apiBase,
  CARD_MIN_USD: "5",
  CARD_MAX_USD: "200",
});

let stripe: FakeStripe;
let gateway: TestGateway;

beforeAll(async () => {
  stripe = await startFakeStripe({ webhookSecret });
  gateway = await startTestGateway({ env: stripeEnv(stripe.apiBase) });
  stripe.setWebhookUrl(`${gateway.baseUrl}/v1/webhooks/stripe`);
});
afterAll(async () => {
  await gateway?.close();
  await stripe?.close();
});

interface Checkout {
  checkout_url: string;
  session_id: string;
  credit_usd: number;
  fee_usd: number;
  total_usd: number;
}

async function fundCard(token: string, amountUsd: unknown): Promise<Response> {
  return fetch(`${gateway.baseUrl}/proxy/${token}/fund/card`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ amount_usd: amountUsd }),
  });
}

async function checkout(token: string, amountUsd: number): Promise<Checkout> {
  const response = await fundCard(token, amountUsd);
  expect(response.status).toBe(201);
  return (await response.json()) as Checkout;
}

const outcomeOf = (delivery: { status: number; body: string }) =>
  (JSON.parse(delivery.body) as { outcome: string; reason: string | null }).outcome;

async function cardCredits(token: string): Promise<number> {
  const record = await findToken(gateway.app.database.db, token);
  const rows = await queryRows<{ count: string }>(
    gateway.app.database.db,
    sql`SELECT count(*)::text AS count FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE e.account_id = ${record?.accountId ?? 0n} AND t.kind = 'card_credit'`,
  );
  return Number(rows[0]?.count ?? 0);
}

describe("card funding options", () => {
  it("offers card with limits, presets, the fee rule and per-preset totals", async () => {
    const { token } = await gateway.register();
    const body = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/funding`)).json()) as {
      card: Record<string, unknown>;
      solana: Record<string, unknown>;
    };
    expect(body.card).toMatchObject({
      enabled: true,
      min_usd: 5,
      max_usd: 200,
      presets_usd: [5, 20, 50, 100],
      fee: { mode: "pass_on", percent_bps: 290, fixed_cents: 30 },
      publishable_key: "pk_test_funding",
    });
    expect(body.card.quotes).toContainEqual({ credit_usd: 20, fee_usd: 0.91, total_usd: 20.91 });
    expect(body.solana).toMatchObject({ enabled: false });
    const quote = await fetch(`${gateway.baseUrl}/proxy/${token}/fund/card/quote?amount_usd=20`);
    expect(await quote.json()).toMatchObject({ credit_usd: 20, fee_usd: 0.91, total_usd: 20.91 });
    const unknown = await fetch(`${gateway.baseUrl}/proxy/00000000-0000-4000-8000-000000000000/funding`);
    expect(unknown.status).toBe(401);
  });

  it("refuses amounts outside the limits or with fractions of a cent, and creates no session", async () => {
    const { token } = await gateway.register();
    const before = stripe.sessions.size;
    for (const amount of [1, 4.99, 201, 20.555, "20", null, -5]) {
      const response = await fundCard(token, amount);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/amount_usd/);
    }
    expect(stripe.sessions.size).toBe(before);
  });
});

describe("card checkout and webhook", () => {
  it("creates a session naming the account, never the token, and credits once when paid", async () => {
    const { token } = await gateway.register();
    const created = await checkout(token, 20);
    expect(created).toMatchObject({ credit_usd: 20, fee_usd: 0.91, total_usd: 20.91 });
    expect(created.checkout_url).toBe(`${stripe.apiBase}/c/pay/${created.session_id}`);
    const record = await findToken(gateway.app.database.db, token);
    const sent = stripe.requests.at(-1);
    expect(sent?.path).toBe("/v1/checkout/sessions");
    expect(JSON.stringify(sent?.body)).not.toContain(token);
    expect(sent?.body.metadata).toEqual({
      pod_account_id: record?.accountId.toString(),
      pod_credit_microunits: "20000000",
    });
    expect(sent?.body.success_url).toBe(
      `${gateway.baseUrl}/dashboard/fund/return?session_id={CHECKOUT_SESSION_ID}`,
    );
    const [row] = await gateway.app.database.db
      .select()
      .from(cardSessions)
      .where(eq(cardSessions.id, created.session_id));
    expect(row).toMatchObject({ status: "open", creditMicrounits: 20_000_000n, amountTotal: 2091n });

    const pending = await fetch(`${gateway.baseUrl}/proxy/${token}/fund/card/${created.session_id}`);
    expect(await pending.json()).toMatchObject({ status: "open", usdc_balance: 0 });

    const delivery = await stripe.complete(created.session_id);
    expect(delivery.status).toBe(200);
    expect(outcomeOf(delivery)).toBe("credited");
    expect((await gateway.balanceOf(token)).balance).toBe(20_000_000n);
    const done = await fetch(`${gateway.baseUrl}/proxy/${token}/fund/card/${created.session_id}`);
    expect(await done.json()).toMatchObject({ status: "credited", usdc_balance: 20_000_000 });

    const entries = await queryRows<{ metadata: Record<string, unknown> }>(
      gateway.app.database.db,
      sql`SELECT metadata FROM ledger_transactions WHERE idempotency_key = ${`stripe:checkout:${created.session_id}`}`,
    );
    expect(entries[0]?.metadata).toMatchObject({
      stripe_session_id: created.session_id,
      stripe_event_id: stripe.events.at(-1)?.id,
      stripe_payment_intent_id: expect.stringMatching(/^pi_/),
    });
    // Another token cannot read this session.
    const other = await gateway.register();
    const foreign = await fetch(`${gateway.baseUrl}/proxy/${other.token}/fund/card/${created.session_id}`);
    expect(foreign.status).toBe(404);
  });

  it("credits a session once however often or however concurrently Stripe retries", async () => {
    const { token } = await gateway.register();
    const created = await checkout(token, 50);
    expect(outcomeOf(await stripe.complete(created.session_id))).toBe("credited");
    const event = stripe.events.at(-1);
    const payload = JSON.stringify(event, null, 2);
    const replays = await Promise.all(Array.from({ length: 5 }, () => stripe.deliver(payload)));
    expect(replays.map((delivery) => delivery.status)).toEqual([200, 200, 200, 200, 200]);
    expect(replays.map(outcomeOf)).toEqual(["duplicate", "duplicate", "duplicate", "duplicate", "duplicate"]);
    // A second, different event for the same session (async success after completion).
    const session = stripe.sessions.get(created.session_id);
    const async = await stripe.sendEvent("checkout.session.async_payment_succeeded", { ...session });
    expect(outcomeOf(async)).toBe("ignored");
    expect((await gateway.balanceOf(token)).balance).toBe(50_000_000n);
    expect(await cardCredits(token)).toBe(1);
  });

  it("two different events for one session racing each other credit once", async () => {
    const { token } = await gateway.register();
    const created = await checkout(token, 5);
    const session = stripe.sessions.get(created.session_id);
    if (!session) throw new Error("no session");
    session.payment_intent = "pi_test_race";
    session.payment_status = "paid";
    session.status = "complete";
    const results = await Promise.all([
      stripe.sendEvent("checkout.session.completed", { ...session }),
      stripe.sendEvent("checkout.session.async_payment_succeeded", { ...session }),
      stripe.sendEvent("checkout.session.completed", { ...session }),
    ]);
    expect(results.map(outcomeOf).filter((outcome) => outcome === "credited")).toHaveLength(1);
    expect((await gateway.balanceOf(token)).balance).toBe(5_000_000n);
  });

  it("refuses bad signatures, tampered bodies, stale and future timestamps; nothing is credited", async () => {
    const { token } = await gateway.register();
    const created = await checkout(token, 20);
    const session = {
      ...stripe.sessions.get(created.session_id),
      payment_status: "paid",
      status: "complete",
    };
    const event = {
      id: "evt_test_forged",
      object: "event",
      api_version: "2026-10-28.endive",
      created: Math.floor(Date.now() / 1000),
      data: { object: session },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type: "checkout.session.completed",
    };
    const payload = JSON.stringify(event);
    const wrongSecret = await stripe.deliver(payload, { secret: "whsec_attacker" });
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.body).toContain("invalid Stripe signature");
    const stale = await stripe.deliver(payload, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale.status).toBe(400);
    // Dated ahead, a signature would stay replayable until its date passes; within a minute of skew it is honest.
    const future = await stripe.deliver(payload, { timestamp: Math.floor(Date.now() / 1000) + 3600 });
    expect(future.status).toBe(400);
    expect(future.body).toContain("dated in the future");
    const missing = await fetch(`${gateway.baseUrl}/v1/webhooks/stripe`, { method: "POST", body: payload });
    expect(missing.status).toBe(400);
    // A valid signature over one body does not carry over to another.
    const signedOther = await stripe.deliver(payload.replace("evt_test_forged", "evt_test_forgeD"), {
      signature: (await signatureFor(payload)) ?? "",
    });
    expect(signedOther.status).toBe(400);
    expect((await gateway.balanceOf(token)).balance).toBe(0n);
    const stored = await gateway.app.database.db
      .select()
      .from(stripeEvents)
      .where(eq(stripeEvents.id, "evt_test_forged"));
    expect(stored).toHaveLength(0);
  });

  it("parks unknown sessions, wrong amounts, wrong currencies and foreign accounts; credits none of them", async () => {
    const { token } = await gateway.register();
    const created = await checkout(token, 20);
    const session = stripe.sessions.get(created.session_id);
    if (!session) throw new Error("no session");
    const paid = { ...session, payment_status: "paid", status: "complete", payment_intent: "pi_test_x" };
    const cases = [
      [{ ...paid, id: "cs_test_unknown" }, "unknown_session"],
      [{ ...paid, amount_total: 100 }, "amount_mismatch"],
      [{ ...paid, currency: "eur" }, "amount_mismatch"],
      [{ ...paid, metadata: { ...paid.metadata, pod_account_id: "999999999" } }, "account_mismatch"],
    ] as const;
    for (const [object, reason] of cases) {
      const delivery = await stripe.sendEvent("checkout.session.completed", object);
      expect(delivery.status).toBe(200);
      const body = JSON.parse(delivery.body) as { outcome: string; reason: string };
      expect(body.outcome).toBe("parked");
      expect(body.reason).toContain(reason);
    }
    expect((await gateway.balanceOf(token)).balance).toBe(0n);
    const parked = await queryRows<{ count: string }>(
      gateway.app.database.db,
      sql`SELECT count(*)::text AS count FROM stripe_events WHERE outcome = 'parked'`,
    );
    expect(Number(parked[0]?.count)).toBeGreaterThanOrEqual(4);
    // The real payment still lands afterwards.
    expect(outcomeOf(await stripe.complete(created.session_id))).toBe("credited");
    expect((await gateway.balanceOf(token)).balance).toBe(20_000_000n);
  });

  it("waits for async payments: completed-unpaid records, async_payment_succeeded credits", async () => {
    const { token } = await gateway.register();
    const created = await checkout(token, 20);
    const first = await stripe.complete(created.session_id, { paymentStatus: "unpaid" });
    expect(outcomeOf(first)).toBe("recorded");
    expect((await gateway.balanceOf(token)).balance).toBe(0n);
    const session = { ...stripe.sessions.get(created.session_id), payment_status: "paid" };
    expect(outcomeOf(await stripe.sendEvent("checkout.session.async_payment_succeeded", session))).toBe(
      "credited",
    );
    expect((await gateway.balanceOf(token)).balance).toBe(20_000_000n);
  });
});

describe("refunds and disputes", () => {
  it("a partial refund takes back its share of the credit", async () => {
    const { token } = await gateway.register();
    const created = await checkout(token, 100);
    await stripe.complete(created.session_id);
    const total = stripe.sessions.get(created.session_id)?.amount_total ?? 0;
    const delivery = await stripe.refund(created.session_id, Math.floor(total / 2));
    expect(outcomeOf(delivery)).toBe("reversed");
    const left = (await gateway.balanceOf(token)).balance;
    expect(left).toBeGreaterThan(49_000_000n);
    expect(left).toBeLessThan(51_000_000n);
    // The rest of the refund: the whole credit is gone, never more.
    expect(outcomeOf(await stripe.refund(created.session_id))).toBe("reversed");
    expect((await gateway.balanceOf(token)).balance).toBe(0n);
    expect(outcomeOf(await stripe.refund(created.session_id))).toBe("recorded");
  });

  it("takes back only what is available and records the rest as a receivable", async () => {
    const { token } = await gateway.register();
    const created = await checkout(token, 10);
    await stripe.complete(created.session_id);
    const record = await findToken(gateway.app.database.db, token);
    if (!record) throw new Error("no token");
    // An in-flight request holds 6 USDC when the dispute arrives.
    const hold = await placeHold(gateway.app.database.db, record.accountId, 6_000_000n, 60);
    if (hold.type !== "held") throw new Error("hold failed");
    const delivery = await stripe.dispute(created.session_id);
    expect(outcomeOf(delivery)).toBe("reversed");
    expect(await gateway.balanceOf(token)).toMatchObject({ balance: 6_000_000n, available: 0n });
    const owed = await gateway.app.database.db
      .select()
      .from(receivables)
      .where(eq(receivables.accountId, record.accountId));
    expect(owed).toMatchObject([{ amountMicrounits: 6_000_000n, source: "stripe_dispute" }]);
    const history = (await (await fetch(`${gateway.baseUrl}/proxy/${token}/funding/history`)).json()) as {
      receivable_microunits: number;
      receivables: { source: string }[];
      card_payments: { reversed_microunits: number }[];
    };
    expect(history).toMatchObject({
      receivable_microunits: 6_000_000,
      receivables: [{ source: "stripe_dispute" }],
      card_payments: [{ reversed_microunits: 10_000_000 }],
    });
    await releaseHold(gateway.app.database.db, hold.holdId);
    // A replayed dispute event changes nothing.
    const replay = await stripe.deliver(JSON.stringify(stripe.events.at(-1)));
    expect(outcomeOf(replay)).toBe("duplicate");
    expect((await gateway.balanceOf(token)).balance).toBe(6_000_000n);
    // The released hold pays the receivable at the next maintenance pass: the whole credit is back.
    expect(await collectOpenReceivables(gateway.app.database.db)).toBe(6_000_000n);
    expect((await gateway.balanceOf(token)).balance).toBe(0n);
    const [settled] = await gateway.app.database.db
      .select()
      .from(receivables)
      .where(eq(receivables.accountId, record.accountId));
    expect(settled).toMatchObject({ outstandingMicrounits: 0n, status: "settled" });
  });

  it("parks a refund for a payment the gateway never credited", async () => {
    const delivery = await stripe.sendEvent("charge.refunded", {
      id: "ch_test_unknown",
      object: "charge",
      amount: 1000,
      amount_refunded: 1000,
      currency: "usd",
      payment_intent: "pi_test_unknown",
    });
    expect(JSON.parse(delivery.body)).toMatchObject({ outcome: "parked", reason: "unknown_payment" });
  });
});

describe("reconciliation after every card test above", () => {
  it("the ledger matches Stripe's sessions and events to the microunit", async () => {
    const report = await reconcileOver(gateway);
    expect(report.differences).toEqual([]);
    expect(report.checked).toContain("stripe");
  });
});

describe("card funding when Stripe is off or unreachable", () => {
  it("answers a clear JSON error and records nothing", async () => {
    const unreachable = await startTestGateway({ env: stripeEnv("http://127.0.0.1:1") });
    try {
      const { token } = await unreachable.register();
      const response = await fetch(`${unreachable.baseUrl}/proxy/${token}/fund/card`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount_usd: 20 }),
      });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
        "could not reach Stripe",
      );
      expect(await unreachable.app.database.db.select().from(cardSessions)).toHaveLength(0);
    } finally {
      await unreachable.close();
    }
  });

  it("reconcile names Stripe as unreadable (exit code 2) instead of dying with a stack trace", async () => {
    const unreachable = await startTestGateway({ env: stripeEnv("http://127.0.0.1:1") });
    try {
      const report = await reconcileOver(unreachable);
      expect(report.reconciled).toBe(false);
      expect(report.checked).not.toContain("stripe");
      expect(report.unreadable.map((line) => line.source)).toEqual(["stripe"]);
      expect(report.unreadable[0]?.reason.length).toBeGreaterThan(0);
      // `npm run reconcile` (a process of its own: it needs a database it can share).
      const databaseUrl = unreachable.app.env.DATABASE_URL;
      if (databaseUrl) {
        const command = await reconcileCommand({
          DATABASE_URL: databaseUrl,
          ...stripeEnv("http://127.0.0.1:1"),
        });
        expect(command.code).toBe(2);
        expect(command.report.unreadable.map((line) => line.source)).toEqual(["stripe"]);
      }
    } finally {
      await unreachable.close();
    }
  }, 60_000);

  it("without Stripe keys: funding says card is off, fund/card and the webhook refuse", async () => {
    const off = await startTestGateway();
    try {
      const { token } = await off.register();
      const options = (await (await fetch(`${off.baseUrl}/proxy/${token}/funding`)).json()) as {
        card: { enabled: boolean; reason: string };
      };
      expect(options.card).toMatchObject({
        enabled: false,
        reason: expect.stringContaining("not offered"),
      });
      const response = await fetch(`${off.baseUrl}/proxy/${token}/fund/card`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount_usd: 20 }),
      });
      expect(response.status).toBe(503);
      const webhook = await fetch(`${off.baseUrl}/v1/webhooks/stripe`, { method: "POST", body: "{}" });
      expect(webhook.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

/** The Stripe-Signature header the fake would send for `payload`. */
async function signatureFor(payload: string): Promise<string | undefined> {
  const { default: Stripe } = await import("stripe");
  return new Stripe("sk_test_x").webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
}
