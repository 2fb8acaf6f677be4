import { GatewayError } from "../../errors/gateway-error";
import { clientIp } from "../../http/client-ip";
import { publicBaseUrl } from "../../http/public-urls";
import { encodeJsonHeader } from "../../x402/core/header-codec";
import { issueQuote, type QuoteRequest } from "../../x402/core/issue-quote";
import { loadBoundQuote } from "../../x402/core/load-bound-quote";
import { readPaymentProof } from "../../x402/core/payment-header";
import { settlePayment } from "../../x402/core/settle-payment";
import type { Settlement } from "../../x402/core/settlement";
import { offeredRails } from "../../x402/x402-wiring";
import type { ApiCall } from "../route-definition";

/** One request for sale over x402, already read and priced: what it binds, caps and serves. */
export interface X402Sale {
  /** What the quote binds: a payment buys exactly these bytes on this path. */
  bound: { method: string; path: string; bodyHash: string };
  /** The quote's terms (throws the routing error when nobody can serve it). */
  quoteRequest(): QuoteRequest;
  /** Why it cannot be served within a cap, or undefined when it can. */
  unservable(capMicrounits: bigint): GatewayError | undefined;
  /** Serves it once paid, against the cap the payment held. */
  serve(settlement: Settlement): Promise<Response>;
}

/**
 * The x402 exchange every paid route shares. Without a payment: a 402 carrying the quote.
 * With one: verify and settle it first (a self-broadcast transfer, a co-signed standard
 * payment, or a surplus-balance spend), then serve. Errors are thrown to the request
 * pipeline, which renders them in the caller's dialect; no error before settlement has moved
 * any money.
 */
export async function sellWithX402(call: ApiCall<"x402">, sale: X402Sale): Promise<Response> {
  const { app, request } = call;
  const rails = offeredRails(app.x402);
  const proof = readPaymentProof(request.headers, rails.registered);
  if (!proof) {
    const quotes = await app.x402QuoteLimiter.hit(clientIp(request));
    if (!quotes.allowed) {
      throw new GatewayError("rate_limited", "rate limited: too many unpaid x402 quotes from this address", {
        headers: { "retry-after": String(quotes.retryAfterSeconds) },
        details: { retry_after_seconds: quotes.retryAfterSeconds },
      });
    }
    const document = await issueQuote(app.database.db, rails.configured, sale.quoteRequest(), {
      ttlSeconds: app.env.X402_QUOTE_TTL_SECONDS,
      resourceUrl: `${publicBaseUrl(app, request)}${sale.bound.path}`,
    });
    // Co-signed payments a crash or a slow confirmation left pending are finished off the paid path.
    app.x402.scheduleReconciliation();
    throw new GatewayError(
      "payment_required",
      "Payment required: pay one of the PAYMENT-REQUIRED options, then retry the same request with a PAYMENT-SIGNATURE header.",
      {
        headers: { "payment-required": encodeJsonHeader(document), "cache-control": "no-store" },
        details: { quote_id: document.quote_id, payment_required: document },
      },
    );
  }
  const limit = await app.x402PaymentLimiter.hit(clientIp(request));
  if (!limit.allowed) {
    throw new GatewayError("rate_limited", "rate limited: too many x402 payment attempts from this address", {
      headers: { "retry-after": String(limit.retryAfterSeconds) },
      details: { retry_after_seconds: limit.retryAfterSeconds },
    });
  }
  const quote = await loadBoundQuote(app.database.db, proof.quoteId, sale.bound);
  const settlement = await settlePayment(
    {
      database: app.database.db,
      holdTtlSeconds: app.env.HOLD_TTL_SECONDS,
      quote,
      unservable: () => sale.unservable(quote.capMicrounits),
    },
    rails,
    proof,
  );
  return await sale.serve(settlement);
}
