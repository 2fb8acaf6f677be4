import Stripe from "stripe";
import type { Database } from "../db/client";
import { cardSessions } from "../db/schema";
import { badRequest, GatewayError } from "../errors/gateway-error";
import { log } from "../log";
import type { TokenRecord } from "../tokens/find-token";
import { type CardQuote, centsToMicrounits, quoteCard } from "./card-fee";
import type { CardConfig } from "./card-settings";

export interface CardCheckout {
  sessionId: string;
  checkoutUrl: string;
  quote: CardQuote;
}

/** Whole cents from a USD amount with at most two decimals, within the configured limits. */
export function creditCentsOf(config: Pick<CardConfig, "minUsd" | "maxUsd">, amountUsd: unknown): number {
  if (typeof amountUsd !== "number" || !Number.isFinite(amountUsd))
    throw badRequest("amount_usd must be a number of US dollars, e.g. 20", { param: "amount_usd" });
  const cents = Math.round(amountUsd * 100);
  if (Math.abs(cents - amountUsd * 100) > 1e-6)
    throw badRequest("amount_usd may have at most two decimals", { param: "amount_usd" });
  if (cents < config.minUsd * 100 || cents > config.maxUsd * 100) {
    throw badRequest(`amount_usd must be from ${config.minUsd} to ${config.maxUsd}`, {
      param: "amount_usd",
      details: { min_usd: config.minUsd, max_usd: config.maxUsd },
    });
  }
  return cents;
}

/**
 * Creates a Stripe Checkout Session for a top-up and records it. The session names the
 * token's ledger account, never the token: metadata is visible in Stripe's dashboard.
 */
export async function createCardCheckout(
  database: Database,
  config: CardConfig,
  token: TokenRecord,
  creditCents: number,
  returnUrls: { success: string; cancel: string },
): Promise<CardCheckout> {
  const quote = quoteCard(config.fee, creditCents);
  const accountId = token.accountId.toString();
  const lineItem = (name: string, cents: number) => ({
    quantity: 1,
    price_data: { currency: config.currency, unit_amount: cents, product_data: { name } },
  });
  let session: Stripe.Checkout.Session;
  try {
    session = await config.stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [
        lineItem("Pod Gateway balance credit", quote.creditCents),
        ...(quote.feeCents > 0 ? [lineItem("Card processing fee", quote.feeCents)] : []),
      ],
      client_reference_id: accountId,
      metadata: {
        pod_account_id: accountId,
        pod_credit_microunits: centsToMicrounits(creditCents).toString(),
      },
      payment_intent_data: { metadata: { pod_account_id: accountId } },
      success_url: returnUrls.success,
      cancel_url: returnUrls.cancel,
    });
  } catch (error) {
    throw stripeUnavailable(error);
  }
  if (!session.url || session.amount_total !== quote.totalCents) {
    log.error("stripe checkout session does not match the request", { session: session.id });
    throw new GatewayError(
      "upstream_error",
      "card payments are unavailable: Stripe answered an unexpected session",
    );
  }
  await database.insert(cardSessions).values({
    id: session.id,
    tokenId: token.id,
    accountId: token.accountId,
    creditMicrounits: centsToMicrounits(creditCents),
    amountTotal: BigInt(quote.totalCents),
    feeAmount: BigInt(quote.feeCents),
    currency: config.currency,
  });
  return { sessionId: session.id, checkoutUrl: session.url, quote };
}

function stripeUnavailable(error: unknown): GatewayError {
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return new GatewayError(
      "service_unavailable",
      "card payments are unavailable: could not reach Stripe; try again shortly",
      {
        cause: error,
      },
    );
  }
  if (error instanceof Stripe.errors.StripeError) {
    log.error("stripe refused a checkout session", {
      type: error.type,
      code: error.code,
      message: error.message,
    });
    return new GatewayError(
      "upstream_error",
      `card payments are unavailable: Stripe refused the request (${error.type})`,
      {
        cause: error,
      },
    );
  }
  return new GatewayError("internal_error", "internal error", { cause: error });
}
