import type { AutoTopUpView } from "@pod-gateway/contracts/balance-watch";
import { and, desc, eq, isNotNull, sql } from "drizzle-orm";
import Stripe from "stripe";
import type { Database, Executor } from "../db/client";
import { queryRows } from "../db/client";
import { autoTopUpCharges, autoTopUps } from "../db/schema";
import { GatewayError } from "../errors/gateway-error";
import { centsToMicrounits } from "../funding/card-fee";
import type { CardConfig } from "../funding/card-settings";
import { systemAccounts } from "../ledger/accounts";
import { log } from "../log";
import { postTokenCredit } from "../tokens/credit-token";
import type { TokenRecord } from "../tokens/find-token";

export type AutoTopUpRow = typeof autoTopUps.$inferSelect;
type ChargeRow = typeof autoTopUpCharges.$inferSelect;

/** Until the owner sets their own: top up $20 below $5, at most $100 a month, off. */
const defaults = { thresholdMicrounits: 5_000_000n, amountCents: 2_000n, monthlyCapCents: 10_000n };

const monthStart = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

export async function findAutoTopUp(database: Database, tokenId: string): Promise<AutoTopUpRow | undefined> {
  const [row] = await database.select().from(autoTopUps).where(eq(autoTopUps.tokenId, tokenId));
  return row;
}

async function ensureAutoTopUp(database: Database, owner: TokenRecord): Promise<AutoTopUpRow> {
  await database
    .insert(autoTopUps)
    .values({ tokenId: owner.id, accountId: owner.accountId, ...defaults })
    .onConflictDoNothing();
  const row = await findAutoTopUp(database, owner.id);
  if (!row) throw new Error("auto top-up row missing after insert");
  return row;
}

export async function putAutoTopUp(
  database: Database,
  owner: TokenRecord,
  input: { enabled: boolean; thresholdMicrounits: bigint; amountCents: bigint; monthlyCapCents: bigint },
): Promise<AutoTopUpRow> {
  const row = await ensureAutoTopUp(database, owner);
  if (input.enabled && row.paymentMethodId === null)
    throw new GatewayError("conflict", "conflict: save a card first (POST /proxy/<token>/auto-top-up/card)");
  if (input.monthlyCapCents < input.amountCents)
    throw new GatewayError("bad_request", "bad request: monthly_cap_cents must be at least amount_cents", {
      param: "monthly_cap_cents",
    });
  const [updated] = await database
    .update(autoTopUps)
    .set({
      enabled: input.enabled,
      thresholdMicrounits: input.thresholdMicrounits,
      amountCents: input.amountCents,
      monthlyCapCents: input.monthlyCapCents,
      armed: true,
      ...(input.enabled ? { lastError: null } : {}),
      updatedAt: new Date(),
    })
    .where(eq(autoTopUps.tokenId, owner.id))
    .returning();
  return updated ?? row;
}

/**
 * Sends the owner to Stripe Checkout in setup mode to save a card for later off-session
 * charges; the card is saved when Stripe's signed `checkout.session.completed` arrives.
 */
export async function startCardSetup(
  database: Database,
  card: CardConfig,
  owner: TokenRecord,
  returnUrls: { success: string; cancel: string },
): Promise<{ checkoutUrl: string; sessionId: string }> {
  const row = await ensureAutoTopUp(database, owner);
  const accountId = owner.accountId.toString();
  try {
    let customerId = row.stripeCustomerId;
    if (customerId === null) {
      // Stripe sees the ledger account, never the token.
      const customer = await card.stripe.customers.create(
        { metadata: { pod_account_id: accountId } },
        { idempotencyKey: `pod-customer-${owner.id}` },
      );
      customerId = customer.id;
      await database
        .update(autoTopUps)
        .set({ stripeCustomerId: customerId })
        .where(eq(autoTopUps.tokenId, owner.id));
    }
    const session = await card.stripe.checkout.sessions.create({
      mode: "setup",
      customer: customerId,
      currency: card.currency,
      client_reference_id: accountId,
      metadata: { pod_account_id: accountId, pod_purpose: "auto_top_up" },
      success_url: returnUrls.success,
      cancel_url: returnUrls.cancel,
    });
    if (!session.url)
      throw new GatewayError("upstream_error", "card setup is unavailable: Stripe sent no page to open");
    await database
      .update(autoTopUps)
      .set({ setupSessionId: session.id })
      .where(eq(autoTopUps.tokenId, owner.id));
    return { checkoutUrl: session.url, sessionId: session.id };
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError(
      "upstream_error",
      "card setup is unavailable: Stripe could not be reached or refused",
      {
        cause: error,
      },
    );
  }
}

/**
 * Saves the card of a completed setup session: only for the session this gateway opened for
 * that customer (a session id or customer from anywhere else saves nothing). Idempotent.
 */
export async function saveCardFromSetup(
  database: Database,
  stripe: Stripe,
  session: Stripe.Checkout.Session,
): Promise<"saved" | "unknown_session"> {
  const customerId = typeof session.customer === "string" ? session.customer : session.customer?.id;
  const [row] = await database.select().from(autoTopUps).where(eq(autoTopUps.setupSessionId, session.id));
  if (!row || !customerId || row.stripeCustomerId !== customerId || session.status !== "complete")
    return "unknown_session";
  const setupId = typeof session.setup_intent === "string" ? session.setup_intent : session.setup_intent?.id;
  if (!setupId) return "unknown_session";
  const setup = await stripe.setupIntents.retrieve(setupId);
  const methodId = typeof setup.payment_method === "string" ? setup.payment_method : setup.payment_method?.id;
  if (setup.status !== "succeeded" || !methodId) return "unknown_session";
  const method = await stripe.paymentMethods.retrieve(methodId);
  if ((typeof method.customer === "string" ? method.customer : method.customer?.id) !== customerId)
    return "unknown_session";
  await database
    .update(autoTopUps)
    .set({
      paymentMethodId: methodId,
      cardBrand: method.card?.brand ?? "card",
      cardLast4: method.card?.last4 ?? "····",
      lastError: null,
      updatedAt: new Date(),
    })
    .where(eq(autoTopUps.tokenId, row.tokenId));
  return "saved";
}

async function chargedThisMonth(database: Database, tokenId: string, now: Date): Promise<bigint> {
  const [row] = await queryRows<{ total: string | bigint }>(
    database,
    sql`SELECT COALESCE(SUM(amount_cents), 0)::text AS total FROM auto_top_up_charges
        WHERE token_id = ${tokenId} AND status IN ('pending', 'succeeded') AND created_at >= ${monthStart(now).toISOString()}`,
  );
  return BigInt(row?.total ?? 0);
}

export async function autoTopUpView(
  database: Database,
  available: boolean,
  row: AutoTopUpRow | undefined,
  now = new Date(),
): Promise<AutoTopUpView> {
  const charges: ChargeRow[] = row
    ? await database
        .select()
        .from(autoTopUpCharges)
        .where(eq(autoTopUpCharges.tokenId, row.tokenId))
        .orderBy(desc(autoTopUpCharges.createdAt))
        .limit(20)
    : [];
  return {
    available,
    enabled: row?.enabled ?? false,
    threshold_microunits: Number(row?.thresholdMicrounits ?? defaults.thresholdMicrounits),
    amount_cents: Number(row?.amountCents ?? defaults.amountCents),
    monthly_cap_cents: Number(row?.monthlyCapCents ?? defaults.monthlyCapCents),
    charged_this_month_cents: row ? Number(await chargedThisMonth(database, row.tokenId, now)) : 0,
    card:
      row?.paymentMethodId && row.cardBrand && row.cardLast4
        ? { brand: row.cardBrand, last4: row.cardLast4 }
        : null,
    last_error: row?.lastError ?? null,
    suspended: row?.suspendedAt
      ? { since: row.suspendedAt.toISOString(), reason: row.suspendedReason ?? "card dispute" }
      : null,
    charges: charges.map((charge) => ({
      id: charge.id,
      amount_cents: Number(charge.amountCents),
      status: charge.status as "pending" | "succeeded" | "failed",
      receipt_url: charge.receiptUrl,
      failure: charge.failure,
      created_at: charge.createdAt.toISOString(),
    })),
  };
}

export type TopUpOutcome =
  | { type: "charged"; chargeId: string; amountCents: bigint }
  | { type: "skipped"; reason: string }
  | { type: "failed"; reason: string };

/** The operator cleared a dispute's suspension: the saved card may be charged again. */
export async function resumeAutoTopUp(database: Database, tokenId: string): Promise<boolean> {
  const cleared = await database
    .update(autoTopUps)
    .set({ suspendedAt: null, suspendedReason: null, updatedAt: new Date() })
    .where(and(eq(autoTopUps.tokenId, tokenId), isNotNull(autoTopUps.suspendedAt)))
    .returning({ tokenId: autoTopUps.tokenId });
  return cleared.length > 0;
}

/**
 * Charges the saved card once for a balance below the threshold. The charge row is the claim:
 * written (one `pending` per token, by a unique index) under the setting's row lock, with the
 * month's cap checked in the same transaction, before Stripe is called; Stripe's idempotency
 * key is the row's id, and the credit's idempotency key the payment intent's, so a retried
 * call or the webhook that follows never credits twice.
 */
export async function chargeAutoTopUp(
  database: Database,
  card: CardConfig,
  tokenId: string,
  now = new Date(),
): Promise<TopUpOutcome> {
  const claimed = await database.transaction(async (transaction) => {
    const [row] = await queryRows<{ token_id: string }>(
      transaction,
      sql`SELECT token_id FROM auto_top_ups WHERE token_id = ${tokenId} FOR UPDATE`,
    );
    if (!row) return { type: "skipped" as const, reason: "no auto top-up" };
    const [setting] = await transaction.select().from(autoTopUps).where(eq(autoTopUps.tokenId, tokenId));
    if (!setting?.enabled || !setting.paymentMethodId || !setting.stripeCustomerId)
      return { type: "skipped" as const, reason: "off or no card" };
    if (setting.suspendedAt) return { type: "skipped" as const, reason: "suspended after a card dispute" };
    if (!setting.armed) return { type: "skipped" as const, reason: "already charged for this crossing" };
    const [pending] = await transaction
      .select({ id: autoTopUpCharges.id })
      .from(autoTopUpCharges)
      .where(and(eq(autoTopUpCharges.tokenId, tokenId), eq(autoTopUpCharges.status, "pending")));
    if (pending) return { type: "skipped" as const, reason: "a charge is in progress" };
    // Read in this transaction, under the lock: a top-up credited meanwhile shows here.
    if ((await settledBalance(transaction, setting.accountId)) >= setting.thresholdMicrounits)
      return { type: "skipped" as const, reason: "balance at or above the threshold" };
    const month = await queryRows<{ total: string | bigint }>(
      transaction,
      sql`SELECT COALESCE(SUM(amount_cents), 0)::text AS total FROM auto_top_up_charges
          WHERE token_id = ${tokenId} AND status IN ('pending', 'succeeded') AND created_at >= ${monthStart(now).toISOString()}`,
    );
    if (BigInt(month[0]?.total ?? 0) + setting.amountCents > setting.monthlyCapCents)
      return { type: "skipped" as const, reason: "monthly cap reached" };
    const [charge] = await transaction
      .insert(autoTopUpCharges)
      .values({
        tokenId,
        accountId: setting.accountId,
        amountCents: setting.amountCents,
        creditMicrounits: centsToMicrounits(Number(setting.amountCents)),
        status: "pending",
      })
      .returning();
    await transaction.update(autoTopUps).set({ armed: false }).where(eq(autoTopUps.tokenId, tokenId));
    return charge
      ? { type: "claimed" as const, charge, setting }
      : { type: "skipped" as const, reason: "not claimed" };
  });
  if (claimed.type !== "claimed") return claimed;
  const { charge, setting } = claimed;
  let intent: Stripe.PaymentIntent;
  try {
    intent = await card.stripe.paymentIntents.create(
      {
        amount: Number(charge.amountCents),
        currency: card.currency,
        customer: setting.stripeCustomerId ?? "",
        payment_method: setting.paymentMethodId ?? "",
        off_session: true,
        confirm: true,
        description: "Pod Gateway auto top-up",
        metadata: { pod_account_id: setting.accountId.toString(), pod_auto_top_up_charge: charge.id },
        expand: ["latest_charge"],
      },
      { idempotencyKey: `pod-auto-top-up-${charge.id}` },
    );
  } catch (error) {
    const reason = describeStripeFailure(error);
    await database.transaction(async (transaction) => {
      await transaction
        .update(autoTopUpCharges)
        .set({ status: "failed", failure: reason })
        .where(eq(autoTopUpCharges.id, charge.id));
      // A declined card is not charged again until the owner looks at it.
      if (error instanceof Stripe.errors.StripeCardError)
        await transaction
          .update(autoTopUps)
          .set({ enabled: false, lastError: `Auto top-up turned off: ${reason}` })
          .where(eq(autoTopUps.tokenId, tokenId));
    });
    log.warn("auto top-up charge failed", { tokenId, charge: charge.id, reason });
    return { type: "failed", reason };
  }
  if (intent.status !== "succeeded") {
    await database
      .update(autoTopUpCharges)
      .set({ status: "failed", failure: `payment ${intent.status}`, paymentIntentId: intent.id })
      .where(eq(autoTopUpCharges.id, charge.id));
    return { type: "failed", reason: `payment ${intent.status}` };
  }
  await creditTopUp(database, intent);
  return { type: "charged", chargeId: charge.id, amountCents: charge.amountCents };
}

/**
 * The account's settled balance (what requests in flight hold is not taken off: a lease holds
 * far more than its requests will spend, and the threshold is about money, not reservations).
 */
export async function settledBalance(executor: Executor, accountId: bigint): Promise<bigint> {
  const [row] = await queryRows<{ balance: string | bigint }>(
    executor,
    sql`SELECT balance::text AS balance FROM accounts WHERE id = ${accountId}`,
  );
  return BigInt(row?.balance ?? 0);
}

function describeStripeFailure(error: unknown): string {
  if (error instanceof Stripe.errors.StripeCardError)
    return `the card was declined (${error.decline_code ?? error.code ?? "declined"})`;
  if (error instanceof Stripe.errors.StripeConnectionError) return "Stripe could not be reached";
  if (error instanceof Stripe.errors.StripeError) return `Stripe refused the charge (${error.type})`;
  return "unexpected error";
}

/**
 * Credits a succeeded auto top-up payment intent to its token, once: from the API's answer or
 * from the `payment_intent.succeeded` webhook, whichever comes first (both carry the same
 * idempotency key). Only an intent for a charge row this gateway wrote, for its amount, counts.
 */
export async function creditTopUp(
  database: Database,
  intent: Stripe.PaymentIntent,
): Promise<"credited" | "already" | "unknown"> {
  const chargeId = intent.metadata?.pod_auto_top_up_charge;
  if (!chargeId || intent.status !== "succeeded" || !/^[0-9a-f-]{36}$/i.test(chargeId)) return "unknown";
  return database.transaction(async (transaction) => {
    const [charge] = await queryRows<{ id: string }>(
      transaction,
      sql`SELECT id FROM auto_top_up_charges WHERE id = ${chargeId} FOR UPDATE`,
    );
    if (!charge) return "unknown";
    const [row] = await transaction.select().from(autoTopUpCharges).where(eq(autoTopUpCharges.id, chargeId));
    if (!row || BigInt(intent.amount_received) !== row.amountCents || intent.currency !== "usd")
      return "unknown";
    if (row.status === "succeeded") return "already";
    const receiptUrl =
      typeof intent.latest_charge === "object" && intent.latest_charge !== null
        ? (intent.latest_charge.receipt_url ?? null)
        : null;
    const posted = await postTokenCredit(transaction, {
      tokenId: row.tokenId,
      accountId: row.accountId,
      amount: row.creditMicrounits,
      kind: "card_auto_top_up",
      source: systemAccounts.stripe,
      idempotencyKey: `stripe:payment_intent:${intent.id}`,
      metadata: {
        reason: "auto top-up",
        stripe_payment_intent_id: intent.id,
        amount_total: Number(row.amountCents),
        currency: "usd",
        ...(receiptUrl ? { receipt_url: receiptUrl } : {}),
      },
    });
    await transaction
      .update(autoTopUpCharges)
      .set({
        status: "succeeded",
        paymentIntentId: intent.id,
        ...(receiptUrl ? { receiptUrl } : {}),
        failure: null,
      })
      .where(eq(autoTopUpCharges.id, chargeId));
    return posted.type === "posted" ? "credited" : "already";
  });
}
