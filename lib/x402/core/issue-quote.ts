import type { Executor } from "../../db/client";
import { newUuid } from "../../ids";
import { networkFamily, type PaymentRail } from "./payment-rail";
import { buildPaymentRequired, type PaymentRequiredDocument } from "./payment-required";
import { MINIMUM_CAP_MICROUNITS } from "./quote-floors";
import { insertQuote, type NewQuoteOption } from "./quote-store";

/** What a quote binds (the request's method, path and body hash) and what it caps. */
export interface QuoteRequest {
  method: string;
  path: string;
  bodyHash: string;
  model: string;
  /** The request's worst-case cost in USDC microunits over every source it may use. */
  worstCaseMicrounits: bigint;
}

/**
 * Stores a quote: its cap is the request's worst case, rounded up to the floor. Each rail
 * then says what it asks for that cap (its own units, its own floors), and the options are
 * stored as rows beside the quote in the order they are offered.
 */
export async function issueQuote(
  executor: Executor,
  rails: readonly PaymentRail[],
  request: QuoteRequest,
  settings: { ttlSeconds: number; resourceUrl: string },
): Promise<PaymentRequiredDocument> {
  // A cap is never zero: a free quote would make any landed transfer a valid payment.
  let capMicrounits = request.worstCaseMicrounits;
  if (capMicrounits < MINIMUM_CAP_MICROUNITS) capMicrounits = MINIMUM_CAP_MICROUNITS;
  const offered = await Promise.all(rails.map((rail) => rail.quote(capMicrounits)));
  const options: NewQuoteOption[] = offered.flat();
  const createdAt = new Date();
  const quote = await insertQuote(
    executor,
    {
      id: newUuid(),
      method: request.method,
      path: request.path,
      bodyHash: request.bodyHash,
      model: request.model,
      capMicrounits,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + settings.ttlSeconds * 1000),
    },
    options,
  );
  const accepts = await Promise.all(
    rails.map((rail) =>
      rail.accepts(
        quote,
        quote.options.filter((option) => networkFamily(option.network) === rail.family),
        settings.resourceUrl,
      ),
    ),
  );
  return buildPaymentRequired(quote, accepts.flat(), settings.resourceUrl);
}
