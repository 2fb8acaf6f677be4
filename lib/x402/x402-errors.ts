import { badRequest, GatewayError } from "../errors/gateway-error";

/**
 * Caller-facing x402 messages. Where the reference service's wording is known, it is
 * kept verbatim (clients match on it); every message gets the `bad request: ` prefix
 * that service uses.
 */
export const x402Messages = {
  maxTokensRequired: "x402 requests must include max_tokens or max_completion_tokens",
  invalidHeader: "invalid payment header JSON",
  missingSignature: "PAYMENT-SIGNATURE is missing the Solana transaction signature",
  missingQuoteId: "PAYMENT-SIGNATURE is missing the quote_id",
  unknownQuote: "unknown x402 quote",
  quoteMismatch: "x402 quote does not match this request",
  quoteExpired: "x402 quote has expired; request a new quote",
  quoteSettled: "x402 quote has already been settled; request a new quote",
  notFound: "Solana transaction not found or not yet confirmed",
  signatureUsed: "x402 payment signature has already been used to settle a quote",
  unsupportedNetwork: "only Solana and Base x402 payments are supported",
  balanceNeedsProof: "balance spend requires payload.proof (signed quote id)",
  balanceNeedsWallet: "balance spend requires payer_wallet",
  budgetExhausted:
    "x402 sponsored-fee daily budget is exhausted: pay with a self-broadcast USDC or SOL transfer (the native accepts entries) instead",
} as const;

export function x402BadRequest(message: string, details?: Record<string, unknown>): GatewayError {
  return badRequest(message, { headers: { "x-should-retry": "false" }, ...(details ? { details } : {}) });
}

export function balanceBelowCap(capMicrounits: bigint, availableMicrounits: bigint): GatewayError {
  return x402BadRequest(
    `x402 wallet balance is below the quote cap (${capMicrounits} microunits); pay on-chain instead`,
    {
      cap_microunits: Number(capMicrounits),
      wallet_available_microunits: Number(availableMicrounits),
    },
  );
}

export function sponsoredBudgetExhausted(): GatewayError {
  return new GatewayError("service_unavailable", x402Messages.budgetExhausted, {
    headers: { "x-should-retry": "false" },
    details: { reason: "sponsored_fee_budget_exhausted" },
  });
}
