import type { AppContext } from "../app-context";
import { newUuid } from "../ids";
import { buildPaymentRequired, type PaymentRequiredDocument } from "./payment-required";
import { type PricedRequest, worstCaseOf } from "./price-request";
import { MINIMUM_CAP_MICROUNITS } from "./quote-amounts";
import { insertQuote, type NewQuoteOption } from "./quote-store";
import { networkFamily, type PaymentRail } from "./rails/payment-rail";

/**
 * Prices a request and stores the quote: the cap is the worst case (estimated prompt at the
 * dearest input rate plus `max_tokens` at the dearest output rate) over every source the
 * request may fail over to, under the caller's ceilings, mode and pins; rounded up. Each
 * rail then says what it asks for that cap (its own units, its own floors), and the options
 * are stored as rows beside the quote in the order they are offered.
 */
export async function issueQuote(
  app: AppContext,
  rails: readonly PaymentRail[],
  priced: PricedRequest,
  resourceUrl: string,
): Promise<PaymentRequiredDocument> {
  if (priced.routing.type === "unroutable") throw priced.routing.error;
  const worstCase = worstCaseOf(priced, priced.routing.candidates);
  // A cap is never zero: a free quote would make any landed transfer a valid payment.
  let capMicrounits = worstCase;
  if (capMicrounits < MINIMUM_CAP_MICROUNITS) capMicrounits = MINIMUM_CAP_MICROUNITS;
  const offered = await Promise.all(rails.map((rail) => rail.quote(capMicrounits)));
  const options: NewQuoteOption[] = offered.flat();
  const createdAt = new Date();
  const quote = await insertQuote(
    app.database.db,
    {
      id: newUuid(),
      method: priced.method,
      path: priced.path,
      bodyHash: priced.bodyHash,
      model: priced.model.id,
      capMicrounits,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + app.env.X402_QUOTE_TTL_SECONDS * 1000),
    },
    options,
  );
  const accepts = await Promise.all(
    rails.map((rail) =>
      rail.accepts(
        quote,
        quote.options.filter((option) => networkFamily(option.network) === rail.family),
        resourceUrl,
      ),
    ),
  );
  return buildPaymentRequired(quote, accepts.flat(), resourceUrl);
}
