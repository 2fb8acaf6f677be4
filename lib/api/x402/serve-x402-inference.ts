import type { Dialect } from "../../dialects/dialect";
import { GatewayError } from "../../errors/gateway-error";
import { clientIp } from "../../http/client-ip";
import { publicBaseUrl } from "../../http/public-urls";
import { encodeJsonHeader } from "../../x402/core/header-codec";
import { issueQuote } from "../../x402/core/issue-quote";
import { loadBoundQuote } from "../../x402/core/load-bound-quote";
import { readPaymentProof } from "../../x402/core/payment-header";
import { settlePayment } from "../../x402/core/settle-payment";
import { priceRequest, quoteRequestOf, unservableReason } from "../../x402/price-request";
import { servePaid } from "../../x402/serve-paid";
import { offeredRails } from "../../x402/x402-wiring";
import type { ApiCall } from "../route-definition";

/**
 * POST /proxy/x402/v1/chat/completions and /proxy/x402/v1/messages: accountless inference.
 * Without a payment: a 402 carrying the quote. With one: verify and settle it first (a
 * self-broadcast transfer, a co-signed standard payment, or a surplus-balance spend), then
 * serve, streaming included, with a PAYMENT-RESPONSE receipt. Errors are thrown to the
 * request pipeline, which renders them in the caller's dialect; no error before settlement
 * has moved any money.
 */
export async function serveX402Inference(call: ApiCall<"x402">, dialect: Dialect): Promise<Response> {
  const { app, request, requestId } = call;
  const rails = offeredRails(app.x402);
  const priced = await priceRequest(app, request, dialect);
  const proof = readPaymentProof(request.headers, rails.registered);
  if (!proof) {
    const quotes = await app.x402QuoteLimiter.hit(clientIp(request));
    if (!quotes.allowed) {
      throw new GatewayError("rate_limited", "rate limited: too many unpaid x402 quotes from this address", {
        headers: { "retry-after": String(quotes.retryAfterSeconds) },
        details: { retry_after_seconds: quotes.retryAfterSeconds },
      });
    }
    const document = await issueQuote(app.database.db, rails.configured, quoteRequestOf(priced), {
      ttlSeconds: app.env.X402_QUOTE_TTL_SECONDS,
      resourceUrl: `${publicBaseUrl(app, request)}${priced.path}`,
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
  const quote = await loadBoundQuote(app.database.db, proof.quoteId, priced);
  const settlement = await settlePayment(
    {
      database: app.database.db,
      holdTtlSeconds: app.env.HOLD_TTL_SECONDS,
      quote,
      unservable: () => unservableReason(priced, quote.capMicrounits),
    },
    rails,
    proof,
  );
  return await servePaid(app, request, priced, settlement, requestId);
}
