import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { type FormValue, parseStripeForm } from "./form-body";

/**
 * A local stand-in for the parts of Stripe the gateway uses, speaking Stripe's wire format:
 * the Checkout Sessions API the `stripe` SDK calls (form-encoded requests, Stripe's JSON
 * objects and error envelope), a hosted checkout page a browser can be sent to, and signed
 * webhook deliveries made with the SDK's own `generateTestHeaderString`.
 *
 * Point the gateway at it with STRIPE_API_BASE=<apiBase> and the same webhook secret.
 */

const FAKE_STRIPE_API_VERSION = "2026-10-28.endive";

interface FakeCheckoutSession {
  id: string;
  object: "checkout.session";
  amount_subtotal: number;
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  created: number;
  expires_at: number;
  livemode: false;
  metadata: Record<string, string>;
  mode: string;
  payment_intent: string | null;
  payment_status: "paid" | "unpaid" | "no_payment_required";
  status: "open" | "complete" | "expired";
  success_url: string | null;
  cancel_url: string | null;
  url: string | null;
  customer: string | null;
  setup_intent: string | null;
  line_items_preview: { name: string; amount: number }[];
}

interface FakeCard {
  brand: string;
  last4: string;
  /** Charges on it are declined (card_declined), as Stripe's 4000 0000 0000 0341 test card. */
  declines: boolean;
}

interface FakePaymentIntent {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_received: number;
  currency: string;
  customer: string | null;
  payment_method: string | null;
  metadata: Record<string, string>;
  status: "succeeded" | "requires_payment_method";
  latest_charge: string | null;
  created: number;
  livemode: false;
  off_session?: boolean;
}

interface WebhookDelivery {
  status: number;
  body: string;
}

interface FakeStripeEvent {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
  type: string;
}

export interface FakeStripe {
  /** For STRIPE_API_BASE. */
  apiBase: string;
  sessions: Map<string, FakeCheckoutSession>;
  /** Every event built so far, oldest first. */
  events: FakeStripeEvent[];
  /** API requests the SDK made (method, path, form body, Idempotency-Key). */
  requests: { method: string; path: string; body: Record<string, FormValue>; idempotencyKey?: string }[];
  /** Payment intents created through the API (off-session charges of saved cards), by id. */
  paymentIntents: Map<string, FakePaymentIntent>;
  /** The card the next setup-mode checkout saves (default: a Visa ending 4242 that pays). */
  setNextCard(card: Partial<FakeCard>): void;
  setWebhookUrl(url: string): void;
  /** Pays a session as the hosted page does; delivers checkout.session.completed. */
  complete(sessionId: string, options?: { paymentStatus?: "paid" | "unpaid" }): Promise<WebhookDelivery>;
  /** Builds and delivers an event of any type, signed with the webhook secret. */
  sendEvent(type: string, object: Record<string, unknown>): Promise<WebhookDelivery>;
  /**
   * The answer to the event of `type` about the object `objectId` (a payment intent, a session),
   * once the endpoint has given it: for events the fake sends on its own, such as
   * `payment_intent.succeeded` after a charge, so a test reads that the webhook was handled.
   */
  delivered(type: string, objectId: string): Promise<WebhookDelivery>;
  /** Delivers a payload as-is: replays, tampered bodies, wrong secrets, old timestamps. */
  deliver(
    payload: string,
    options?: { secret?: string; timestamp?: number; signature?: string },
  ): Promise<WebhookDelivery>;
  /** Refunds `amount` (cents, default all) of a completed session's (or a `pi_…`'s) charge; delivers charge.refunded. */
  refund(sessionId: string, amount?: number): Promise<WebhookDelivery>;
  /** Opens a dispute for a completed session's (or a `pi_…`'s) charge; delivers charge.dispute.created. */
  dispute(sessionId: string, amount?: number): Promise<WebhookDelivery>;
  /** Decides the last dispute opened on a session's charge; delivers charge.dispute.closed. */
  closeDispute(sessionId: string, status: "won" | "lost"): Promise<WebhookDelivery>;
  /**
   * A charge taken outside the gateway (by hand in Stripe's dashboard, another integration on
   * the same keys): no session, no event; listed by `GET /v1/charges`. Returns its payment intent.
   */
  chargeOutside(amountCents: number): string;
  close(): Promise<void>;
}

export interface FakeStripeOptions {
  webhookSecret: string;
  webhookUrl?: string;
  port?: number;
}

const stripeForSigning = new Stripe("sk_test_fake_signing_only");

function newStripeId(prefix: string): string {
  // Stripe's ids are letters and digits after the prefix (base64url would add "-" and "_").
  return `${prefix}_test_${randomBytes(16).toString("hex")}`;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function stripeError(response: ServerResponse, status: number, message: string, param?: string): void {
  response.writeHead(status, { "content-type": "application/json", "request-id": newStripeId("req") });
  response.end(
    JSON.stringify({
      error: { type: "invalid_request_error", message, ...(param ? { param } : {}) },
    }),
  );
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "request-id": newStripeId("req") });
  response.end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

interface LineItemForm {
  quantity?: string;
  price_data?: { currency?: string; unit_amount?: string; product_data?: { name?: string } };
}

export async function startFakeStripe(options: FakeStripeOptions): Promise<FakeStripe> {
  const sessions = new Map<string, FakeCheckoutSession>();
  const charges = new Map<
    string,
    { id: string; paymentIntent: string; amount: number; refunded: number; created: number }
  >();
  /** Refund objects, as `GET /v1/refunds` lists them. */
  const refunds: { id: string; charge: string; paymentIntent: string; amount: number; created: number }[] =
    [];
  const customers = new Map<string, Record<string, unknown>>();
  const paymentMethods = new Map<string, { id: string; customer: string | null; card: FakeCard }>();
  const setupIntents = new Map<string, Record<string, unknown>>();
  const paymentIntents = new Map<string, FakePaymentIntent>();
  /** Stripe answers a repeated Idempotency-Key with the first answer. */
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let nextCard: FakeCard = { brand: "visa", last4: "4242", declines: false };
  const events: FakeStripeEvent[] = [];
  const requests: FakeStripe["requests"] = [];
  let webhookUrl = options.webhookUrl;
  let origin = "";

  const createSession = (form: Record<string, FormValue>, response: ServerResponse) => {
    if (form.mode === "setup") return createSetupSession(form, response);
    if (form.mode !== "payment")
      return stripeError(response, 400, "Only modes payment and setup are faked.", "mode");
    const items = (Array.isArray(form.line_items) ? form.line_items : []) as LineItemForm[];
    if (items.length === 0) return stripeError(response, 400, "line_items is required.", "line_items");
    let total = 0;
    let currency = "";
    const preview: FakeCheckoutSession["line_items_preview"] = [];
    for (const item of items) {
      const amount = Number(item.price_data?.unit_amount);
      const quantity = Number(item.quantity ?? "1");
      if (!Number.isInteger(amount) || amount < 1 || !Number.isInteger(quantity)) {
        return stripeError(response, 400, "Invalid integer: unit_amount", "line_items");
      }
      currency ||= item.price_data?.currency ?? "";
      if (item.price_data?.currency !== currency)
        return stripeError(response, 400, "All line items must share one currency.", "line_items");
      total += amount * quantity;
      preview.push({ name: item.price_data?.product_data?.name ?? "item", amount: amount * quantity });
    }
    if (typeof form.success_url !== "string")
      return stripeError(response, 400, "Missing required param: success_url.", "success_url");
    const id = newStripeId("cs");
    const session: FakeCheckoutSession = {
      id,
      object: "checkout.session",
      amount_subtotal: total,
      amount_total: total,
      currency,
      client_reference_id: typeof form.client_reference_id === "string" ? form.client_reference_id : null,
      created: now(),
      expires_at: now() + 24 * 3600,
      livemode: false,
      metadata: (typeof form.metadata === "object" && !Array.isArray(form.metadata)
        ? form.metadata
        : {}) as Record<string, string>,
      mode: "payment",
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      success_url: form.success_url,
      cancel_url: typeof form.cancel_url === "string" ? form.cancel_url : null,
      url: `${origin}/c/pay/${id}`,
      customer: typeof form.customer === "string" ? form.customer : null,
      setup_intent: null,
      line_items_preview: preview,
    };
    sessions.set(id, session);
    json(response, 200, publicSession(session));
  };

  /** Checkout in setup mode: saves a card to a customer for later off-session charges. */
  const createSetupSession = (form: Record<string, FormValue>, response: ServerResponse) => {
    if (typeof form.customer !== "string" || !customers.has(form.customer))
      return stripeError(response, 400, "No such customer.", "customer");
    if (typeof form.success_url !== "string")
      return stripeError(response, 400, "Missing required param: success_url.", "success_url");
    const id = newStripeId("cs");
    const session: FakeCheckoutSession = {
      id,
      object: "checkout.session",
      amount_subtotal: 0,
      amount_total: 0,
      currency: typeof form.currency === "string" ? form.currency : "usd",
      client_reference_id: typeof form.client_reference_id === "string" ? form.client_reference_id : null,
      created: now(),
      expires_at: now() + 24 * 3600,
      livemode: false,
      metadata: (typeof form.metadata === "object" && !Array.isArray(form.metadata)
        ? form.metadata
        : {}) as Record<string, string>,
      mode: "setup",
      payment_intent: null,
      payment_status: "no_payment_required",
      status: "open",
      success_url: form.success_url,
      cancel_url: typeof form.cancel_url === "string" ? form.cancel_url : null,
      url: `${origin}/c/pay/${id}`,
      customer: form.customer,
      setup_intent: null,
      line_items_preview: [],
    };
    sessions.set(id, session);
    json(response, 200, publicSession(session));
  };

  const publicPaymentMethod = (id: string) => {
    const method = paymentMethods.get(id);
    if (!method) return undefined;
    return {
      id,
      object: "payment_method",
      type: "card",
      customer: method.customer,
      card: { brand: method.card.brand, last4: method.card.last4, exp_month: 12, exp_year: 2030 },
      created: now(),
      livemode: false,
    };
  };

  const publicCharge = (chargeId: string) => {
    const charge = [...charges.values()].find((entry) => entry.id === chargeId);
    if (!charge) return chargeId;
    return {
      id: charge.id,
      object: "charge",
      amount: charge.amount,
      amount_refunded: charge.refunded,
      currency: "usd",
      paid: true,
      payment_intent: charge.paymentIntent,
      receipt_url: `${origin}/receipts/${charge.id}`,
      status: "succeeded",
      created: charge.created,
    };
  };

  /** A list as Stripe's list endpoints answer it, newest first, `created[gte]` honoured. */
  const list = (url: string, items: { created: number }[], query: Record<string, FormValue>) => {
    const created = query.created;
    const since = typeof created === "object" && !Array.isArray(created) ? Number(created.gte ?? 0) : 0;
    return {
      object: "list",
      url,
      has_more: false,
      data: items.filter((item) => item.created >= since).reverse(),
    };
  };

  const expanded = (intent: FakePaymentIntent, expand: FormValue | undefined) => {
    const fields = Array.isArray(expand) ? expand : typeof expand === "string" ? [expand] : [];
    return fields.includes("latest_charge") && intent.latest_charge
      ? { ...intent, latest_charge: publicCharge(intent.latest_charge) }
      : intent;
  };

  /** An off-session charge of a saved card (`confirm=true`), answered as Stripe does. */
  const createPaymentIntent = (form: Record<string, FormValue>, response: ServerResponse) => {
    const amount = Number(form.amount);
    if (!Number.isInteger(amount) || amount < 50)
      return stripeError(response, 400, "Amount must be at least $0.50 usd.", "amount");
    const methodId = typeof form.payment_method === "string" ? form.payment_method : "";
    const method = paymentMethods.get(methodId);
    if (!method) return stripeError(response, 400, `No such PaymentMethod: '${methodId}'`, "payment_method");
    if (form.customer !== method.customer)
      return stripeError(
        response,
        400,
        "The customer does not have a payment method with that ID.",
        "customer",
      );
    const intent: FakePaymentIntent = {
      id: newStripeId("pi"),
      object: "payment_intent",
      amount,
      amount_received: 0,
      currency: typeof form.currency === "string" ? form.currency : "usd",
      customer: method.customer,
      payment_method: methodId,
      metadata: (typeof form.metadata === "object" && !Array.isArray(form.metadata)
        ? form.metadata
        : {}) as Record<string, string>,
      status: "requires_payment_method",
      latest_charge: null,
      created: now(),
      livemode: false,
    };
    paymentIntents.set(intent.id, intent);
    if (method.card.declines) {
      const body = {
        error: {
          type: "card_error",
          code: "card_declined",
          decline_code: "generic_decline",
          message: "Your card was declined.",
          payment_intent: intent,
        },
      };
      response.writeHead(402, { "content-type": "application/json", "request-id": newStripeId("req") });
      response.end(JSON.stringify(body));
      void sendEvent("payment_intent.payment_failed", { ...intent }).catch(() => undefined);
      return { status: 402, body };
    }
    const chargeId = newStripeId("ch");
    charges.set(intent.id, { id: chargeId, paymentIntent: intent.id, amount, refunded: 0, created: now() });
    intent.status = "succeeded";
    intent.amount_received = amount;
    intent.latest_charge = chargeId;
    const body = expanded(intent, form.expand);
    json(response, 200, body);
    // Stripe also tells the webhook, a moment later.
    setTimeout(() => void sendEvent("payment_intent.succeeded", { ...intent }).catch(() => undefined), 20);
    return { status: 200, body };
  };

  const buildEvent = (type: string, object: Record<string, unknown>): FakeStripeEvent => {
    const event: FakeStripeEvent = {
      id: newStripeId("evt"),
      object: "event",
      api_version: FAKE_STRIPE_API_VERSION,
      created: now(),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    events.push(event);
    return event;
  };

  const deliver: FakeStripe["deliver"] = async (payload, deliverOptions = {}) => {
    if (!webhookUrl) throw new Error("fake stripe: no webhook URL set");
    const signature =
      deliverOptions.signature ??
      stripeForSigning.webhooks.generateTestHeaderString({
        payload,
        secret: deliverOptions.secret ?? options.webhookSecret,
        ...(deliverOptions.timestamp === undefined ? {} : { timestamp: deliverOptions.timestamp }),
      });
    const response = await fetch(webhookUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        "stripe-signature": signature,
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      },
      body: payload,
    });
    return { status: response.status, body: await response.text() };
  };

  const answered: { type: string; objectId: unknown; delivery: WebhookDelivery }[] = [];
  const answerWaiters: (() => void)[] = [];
  const delivered: FakeStripe["delivered"] = async (type, objectId) => {
    for (;;) {
      const found = answered.find((entry) => entry.type === type && entry.objectId === objectId);
      if (found) return found.delivery;
      await new Promise<void>((resolve) => answerWaiters.push(resolve));
    }
  };

  const sendEvent: FakeStripe["sendEvent"] = async (type, object) => {
    // A genuine payment event for one of its sessions is Stripe's state too: the API then says paid.
    const session = typeof object.id === "string" ? sessions.get(object.id) : undefined;
    if (
      session &&
      type.startsWith("checkout.session.") &&
      object.payment_status === "paid" &&
      object.amount_total === session.amount_total &&
      object.currency === session.currency &&
      JSON.stringify(object.metadata) === JSON.stringify(session.metadata)
    )
      session.payment_status = "paid";
    const delivery = await deliver(JSON.stringify(buildEvent(type, object), null, 2));
    answered.push({ type, objectId: object.id, delivery });
    for (const wake of answerWaiters.splice(0)) wake();
    return delivery;
  };

  const complete: FakeStripe["complete"] = async (sessionId, completeOptions = {}) => {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`fake stripe: no session ${sessionId}`);
    if (session.mode === "setup") {
      const methodId = newStripeId("pm");
      paymentMethods.set(methodId, { id: methodId, customer: session.customer, card: nextCard });
      const setupId = newStripeId("seti");
      setupIntents.set(setupId, {
        id: setupId,
        object: "setup_intent",
        customer: session.customer,
        payment_method: methodId,
        status: "succeeded",
        usage: "off_session",
        livemode: false,
      });
      session.setup_intent = setupId;
      session.status = "complete";
      return sendEvent("checkout.session.completed", publicSession(session));
    }
    const paymentStatus = completeOptions.paymentStatus ?? "paid";
    if (!session.payment_intent) {
      session.payment_intent = newStripeId("pi");
      const chargeId = newStripeId("ch");
      charges.set(session.payment_intent, {
        id: chargeId,
        paymentIntent: session.payment_intent,
        amount: session.amount_total,
        refunded: 0,
        created: now(),
      });
      paymentIntents.set(session.payment_intent, {
        id: session.payment_intent,
        object: "payment_intent",
        amount: session.amount_total,
        amount_received: session.amount_total,
        currency: session.currency,
        customer: session.customer,
        payment_method: null,
        metadata: {},
        status: "succeeded",
        latest_charge: chargeId,
        created: now(),
        livemode: false,
      });
    }
    session.status = "complete";
    session.payment_status = paymentStatus;
    return sendEvent("checkout.session.completed", publicSession(session));
  };

  /** Stripe retries a webhook the endpoint did not accept; the browser checkout does too (4 more tries). */
  const deliverUntilAccepted = async (sessionId: string, first: { status: number; body: string }) => {
    let result = first;
    for (let attempt = 1; attempt <= 4 && (result.status < 200 || result.status >= 300); attempt += 1) {
      console.warn(
        `fake stripe: webhook for ${sessionId} answered ${result.status} ${result.body.slice(0, 300)}; retrying`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
      const session = sessions.get(sessionId);
      if (!session) return;
      result = await sendEvent("checkout.session.completed", publicSession(session)).catch(
        (error: unknown) => ({
          status: 0,
          body: String(error),
        }),
      );
    }
  };

  /** The charge of a completed session, or of a payment intent (an off-session charge). */
  const chargeOf = (sessionId: string) => {
    const session = sessions.get(sessionId);
    const intentId = sessionId.startsWith("pi_") ? sessionId : session?.payment_intent;
    const charge = intentId ? charges.get(intentId) : undefined;
    if (!charge) throw new Error(`fake stripe: ${sessionId} has no charge`);
    return { session, charge };
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) stripeError(response, 500, String(error));
    });
  });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", origin);
    const path = url.pathname;
    if (path.startsWith("/v1/")) {
      const raw = await readBody(request);
      // GET parameters (expand[]) travel in the query string.
      const body = parseStripeForm(request.method === "GET" ? url.search.slice(1) : raw);
      const idempotencyKey =
        typeof request.headers["idempotency-key"] === "string"
          ? request.headers["idempotency-key"]
          : undefined;
      requests.push({
        method: request.method ?? "",
        path,
        body,
        ...(idempotencyKey ? { idempotencyKey } : {}),
      });
      if (!/^Bearer sk_(test|live)_\S+$/.test(request.headers.authorization ?? "")) {
        return stripeError(response, 401, "Invalid API Key provided.");
      }
      if (request.method === "POST" && idempotencyKey) {
        const replay = idempotent.get(`${path}:${idempotencyKey}`);
        if (replay) {
          response.writeHead(replay.status, {
            "content-type": "application/json",
            "request-id": newStripeId("req"),
            "idempotent-replayed": "true",
          });
          return response.end(JSON.stringify(replay.body));
        }
      }
      if (request.method === "POST" && path === "/v1/checkout/sessions") return createSession(body, response);
      if (request.method === "POST" && path === "/v1/customers") {
        const customer = {
          id: newStripeId("cus"),
          object: "customer",
          created: now(),
          livemode: false,
          metadata: typeof body.metadata === "object" && !Array.isArray(body.metadata) ? body.metadata : {},
        };
        customers.set(customer.id, customer);
        return json(response, 200, customer);
      }
      if (request.method === "POST" && path === "/v1/payment_intents") {
        const answered = createPaymentIntent(body, response);
        if (answered && idempotencyKey) idempotent.set(`${path}:${idempotencyKey}`, answered);
        return;
      }
      const intentMatch = /^\/v1\/payment_intents\/([^/]+)$/.exec(path);
      if (request.method === "GET" && intentMatch?.[1]) {
        const intent = paymentIntents.get(intentMatch[1]);
        if (!intent) return stripeError(response, 404, `No such payment_intent: '${intentMatch[1]}'`, "id");
        return json(response, 200, expanded(intent, body.expand));
      }
      const setupMatch = /^\/v1\/setup_intents\/([^/]+)$/.exec(path);
      if (request.method === "GET" && setupMatch?.[1]) {
        const intent = setupIntents.get(setupMatch[1]);
        if (!intent) return stripeError(response, 404, `No such setupintent: '${setupMatch[1]}'`, "id");
        return json(response, 200, intent);
      }
      const methodMatch = /^\/v1\/payment_methods\/([^/]+)$/.exec(path);
      if (request.method === "GET" && methodMatch?.[1]) {
        const method = publicPaymentMethod(methodMatch[1]);
        if (!method) return stripeError(response, 404, `No such PaymentMethod: '${methodMatch[1]}'`, "id");
        return json(response, 200, method);
      }
      if (request.method === "GET" && path === "/v1/charges")
        return json(
          response,
          200,
          list(
            "/v1/charges",
            [...charges.values()].map((charge) => publicCharge(charge.id) as { created: number }),
            body,
          ),
        );
      if (request.method === "GET" && path === "/v1/refunds")
        return json(
          response,
          200,
          list(
            "/v1/refunds",
            refunds.map((refund) => ({
              id: refund.id,
              object: "refund",
              amount: refund.amount,
              charge: refund.charge,
              payment_intent: refund.paymentIntent,
              currency: "usd",
              status: "succeeded",
              created: refund.created,
            })),
            body,
          ),
        );
      // Every event, newest first, in one page: what reconciliation reads from Stripe's API.
      if (request.method === "GET" && path === "/v1/events")
        return json(response, 200, {
          object: "list",
          url: "/v1/events",
          has_more: false,
          data: [...events].reverse(),
        });
      const match = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(path);
      const session = match?.[1] ? sessions.get(match[1]) : undefined;
      if (match && !session)
        return stripeError(response, 404, `No such checkout.session: '${match[1]}'`, "id");
      if (session && request.method === "GET" && !match?.[2])
        return json(response, 200, publicSession(session));
      if (session && request.method === "POST" && match?.[2]) {
        session.status = "expired";
        session.url = null;
        return json(response, 200, publicSession(session));
      }
      return stripeError(response, 404, `Unrecognized request URL (${request.method}: ${path}).`);
    }
    const receipt = /^\/receipts\/([^/]+)$/.exec(path);
    if (receipt?.[1]) {
      const charge = [...charges.values()].find((entry) => entry.id === receipt[1]);
      response.writeHead(charge ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
      return response.end(
        charge
          ? `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Receipt (local Stripe fake)</title></head><body><h1>Receipt</h1><p>Paid $${(charge.amount / 100).toFixed(2)} · ${escapeHtml(charge.id)}</p></body></html>`
          : "not found",
      );
    }
    const page = /^\/c\/pay\/([^/]+)(\/complete|\/cancel)?$/.exec(path);
    const session = page?.[1] ? sessions.get(page[1]) : undefined;
    if (!page || !session) {
      response.writeHead(404, { "content-type": "text/plain" });
      return response.end("not found");
    }
    if (request.method === "POST" && page[2] === "/complete") {
      if (session.status === "open")
        await deliverUntilAccepted(
          session.id,
          await complete(session.id).catch((error: unknown) => ({ status: 0, body: String(error) })),
        );
      const target = (session.success_url ?? "/").replaceAll("{CHECKOUT_SESSION_ID}", session.id);
      response.writeHead(303, { location: target });
      return response.end();
    }
    if (page[2] === "/cancel") {
      response.writeHead(303, { location: session.cancel_url ?? "/" });
      return response.end();
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(checkoutPage(session));
  };

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiBase: origin,
    sessions,
    events,
    requests,
    paymentIntents,
    setNextCard(card) {
      nextCard = { ...nextCard, ...card };
    },
    setWebhookUrl(url) {
      webhookUrl = url;
    },
    complete,
    sendEvent,
    delivered,
    deliver,
    async refund(sessionId, amount) {
      const { charge } = chargeOf(sessionId);
      const refunded = Math.min(charge.amount, charge.refunded + (amount ?? charge.amount));
      refunds.push({
        id: newStripeId("re"),
        charge: charge.id,
        paymentIntent: charge.paymentIntent,
        amount: refunded - charge.refunded,
        created: now(),
      });
      charge.refunded = refunded;
      return sendEvent("charge.refunded", {
        id: charge.id,
        object: "charge",
        amount: charge.amount,
        amount_captured: charge.amount,
        amount_refunded: charge.refunded,
        currency: "usd",
        paid: true,
        payment_intent: charge.paymentIntent,
        refunded: charge.refunded === charge.amount,
        status: "succeeded",
      });
    },
    async closeDispute(sessionId, status) {
      const { charge } = chargeOf(sessionId);
      const opened = events.findLast(
        (event) => event.type === "charge.dispute.created" && event.data.object.charge === charge.id,
      );
      if (!opened) throw new Error(`no dispute opened on ${sessionId}`);
      return sendEvent("charge.dispute.closed", { ...opened.data.object, status });
    },
    async dispute(sessionId, amount) {
      const { charge } = chargeOf(sessionId);
      return sendEvent("charge.dispute.created", {
        id: newStripeId("dp"),
        object: "dispute",
        amount: amount ?? charge.amount,
        charge: charge.id,
        currency: "usd",
        payment_intent: charge.paymentIntent,
        reason: "fraudulent",
        status: "needs_response",
      });
    },
    chargeOutside(amountCents) {
      const intent = newStripeId("pi");
      charges.set(intent, {
        id: newStripeId("ch"),
        paymentIntent: intent,
        amount: amountCents,
        refunded: 0,
        created: now(),
      });
      return intent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The session as Stripe's API returns it (the preview list is the fake's own bookkeeping). */
function publicSession(session: FakeCheckoutSession): Record<string, unknown> {
  const { line_items_preview: _preview, ...rest } = session;
  return rest;
}

/** The hosted checkout stand-in: what the payer sees, and a Pay button that completes it. */
function checkoutPage(session: FakeCheckoutSession): string {
  const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
  const rows = session.line_items_preview
    .map((item) => `<tr><td>${escapeHtml(item.name)}</td><td>${money(item.amount)}</td></tr>`)
    .join("");
  if (session.mode === "setup")
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Save a card (local Stripe fake)</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 2rem auto; padding: 0 1rem">
<p><strong>Local Stripe fake</strong>: no card is charged now.</p>
<h1>Save a card for later payments</h1>
${session.status === "open" ? `<form method="post" action="/c/pay/${session.id}/complete"><button type="submit">Save card</button></form>` : `<p>This checkout session is ${session.status}.</p>`}
</body></html>`;
  const state =
    session.status === "open"
      ? `<form method="post" action="/c/pay/${session.id}/complete"><button type="submit">Pay ${money(session.amount_total)}</button></form>
         <p><a href="/c/pay/${session.id}/cancel">Cancel and go back</a></p>`
      : `<p>This checkout session is ${session.status}.</p>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkout (local Stripe fake)</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 2rem auto; padding: 0 1rem">
<p><strong>Local Stripe fake</strong>: no card is charged.</p>
<h1>Pay ${money(session.amount_total)}</h1>
<table>${rows}<tr><th>Total</th><th>${money(session.amount_total)}</th></tr></table>
${state}
</body></html>`;
}
