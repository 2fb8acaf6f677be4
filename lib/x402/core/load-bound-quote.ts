import type { Executor } from "../../db/client";
import { isUuid } from "../../ids";
import { findQuote, type StoredQuote } from "./quote-store";
import { x402BadRequest, x402Messages } from "./x402-errors";

/**
 * The quote a payment names, provided it was issued for exactly this request: same
 * method, same path, same body bytes. Expiry is checked by each payment path, which
 * differ in how long a landed transfer may still be presented.
 */
export async function loadBoundQuote(
  executor: Executor,
  quoteId: string | undefined,
  request: { method: string; path: string; bodyHash: string },
): Promise<StoredQuote> {
  if (quoteId === undefined || !isUuid(quoteId)) throw x402BadRequest(x402Messages.unknownQuote);
  const quote = await findQuote(executor, quoteId.toLowerCase());
  if (!quote) throw x402BadRequest(x402Messages.unknownQuote);
  if (quote.method !== request.method || quote.path !== request.path || quote.bodyHash !== request.bodyHash) {
    throw x402BadRequest(x402Messages.quoteMismatch, { quote_id: quote.id });
  }
  return quote;
}
