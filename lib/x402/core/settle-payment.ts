import type { PaymentProof } from "./payment-header";
import { networkFamily, type RailSet, type VerifiedPayment } from "./payment-rail";
import type { StoredQuote } from "./quote-store";
import { verifyBalanceSpend } from "./settle-balance";
import type { PaymentContext, Settlement } from "./settlement";
import { unsupportedNetwork, x402BadRequest, x402Messages } from "./x402-errors";

/**
 * Every payment comes through here. The rail of the network it names picks the quote's option
 * the proof pays and verifies the proof (nothing moves); a balance spend needs no chain, only
 * the wallet's signature, which the rail of the wallet's family checks. Then, before anything
 * moves, the checks every payment shares run here, once: the quote is still open (not expired,
 * not settled) and the request can still be served within its cap. A payment whose value has
 * already left the payer skips them: it is credited whatever the quote's state.
 */
export async function settlePayment(
  context: PaymentContext,
  rails: RailSet,
  proof: PaymentProof,
): Promise<Settlement> {
  const verified =
    proof.type === "balance"
      ? await verifyBalanceSpend(context, rails, proof)
      : await verifyOnChain(context.quote, rails, proof);
  if (verified.type === "authorized") ensureQuoteOpen(context);
  return verified.settle();
}

async function verifyOnChain(
  quote: StoredQuote,
  rails: RailSet,
  proof: Exclude<PaymentProof, { type: "balance" }>,
): Promise<VerifiedPayment> {
  // A self-broadcast proof may leave the network out: the first registered family's, then.
  const family = proof.network === "" ? rails.registered[0]?.family : networkFamily(proof.network);
  if (family === undefined) throw unsupportedNetwork(rails.registered);
  const rail = rails.configured.find((candidate) => candidate.family === family);
  if (!rail) throw x402BadRequest(`this gateway takes no x402 payments on ${proof.network || family}`);
  const option = await rail.optionFor(quote, proof);
  return rail.verify({ quote, option, proof });
}

function ensureQuoteOpen({ quote, unservable }: PaymentContext): void {
  if (new Date() > quote.expiresAt) throw x402BadRequest(x402Messages.quoteExpired);
  if (quote.consumedAt !== null) throw x402BadRequest(x402Messages.quoteSettled);
  // Nothing has moved yet: refuse now rather than take money for a request no source can serve.
  const reason = unservable();
  if (reason) throw reason;
}
