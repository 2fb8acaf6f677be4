import type { AppContext } from "../app-context";
import { x402Quotes } from "../db/schema";
import { newUuid } from "../ids";
import { log } from "../log";
import { buildPaymentRequired, type PaymentRequiredDocument } from "./payment-required";
import { type PricedRequest, worstCaseOf } from "./price-request";
import { quoteAmounts } from "./quote-amounts";
import type { X402Services } from "./x402-services";

/**
 * Prices a request and stores the quote: the cap is the worst case (estimated prompt at the
 * dearest input rate plus `max_tokens` at the dearest output rate) over every source the
 * request may fail over to, under the caller's ceilings, mode and pins; rounded up.
 * The SOL amounts come from the live SOL/USD rate; without one the quote is USDC only.
 */
export async function issueQuote(
  app: AppContext,
  services: X402Services,
  priced: PricedRequest,
  resourceUrl: string,
): Promise<PaymentRequiredDocument> {
  if (priced.routing.type === "unroutable") throw priced.routing.error;
  const worstCase = worstCaseOf(priced, priced.routing.candidates);
  const rate = await services.priceSource.getPrice().then(
    (price) => price.microUsdPerSol,
    (error: unknown) => {
      log.warn("x402: no SOL/USD price, quoting USDC only", { error });
      return undefined;
    },
  );
  const amounts = quoteAmounts(worstCase, rate);
  const createdAt = services.now();
  const [quote] = await app.database.db
    .insert(x402Quotes)
    .values({
      id: newUuid(),
      method: priced.method,
      path: priced.path,
      bodyHash: priced.bodyHash,
      model: priced.model.id,
      network: services.network,
      payTo: services.payTo,
      capMicrounits: amounts.capMicrounits,
      capLamports: amounts.sol?.capLamports ?? null,
      microUsdPerSol: amounts.sol?.microUsdPerSol ?? null,
      standardMicrounits: amounts.standardMicrounits,
      standardLamports: amounts.sol?.standardLamports ?? null,
      feePayer: services.cosigner?.feePayer ?? null,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + services.quoteTtlSeconds * 1000),
    })
    .returning();
  if (!quote) throw new Error("x402: the quote was not stored");
  return buildPaymentRequired({
    quote,
    usdcMint: services.usdcMint,
    resourceUrl,
    maxTimeoutSeconds: services.quoteTtlSeconds,
  });
}
