import { badRequest, type GatewayError } from "../../errors/gateway-error";

/**
 * Caller-facing x402 messages every rail shares. Where the reference service's wording is
 * known, it is kept verbatim (clients match on it); every message gets the `bad request: `
 * prefix that service uses. A rail's own messages live in its folder.
 */
export const x402Messages = {
  maxTokensRequired: "x402 requests must include max_tokens or max_completion_tokens",
  invalidHeader: "invalid payment header JSON",
  // The reference service's words: its self-broadcast proofs are Solana transactions.
  missingSignature: "PAYMENT-SIGNATURE is missing the Solana transaction signature",
  missingQuoteId: "PAYMENT-SIGNATURE is missing the quote_id",
  unknownQuote: "unknown x402 quote",
  quoteMismatch: "x402 quote does not match this request",
  quoteExpired: "x402 quote has expired; request a new quote",
  quoteSettled: "x402 quote has already been settled; request a new quote",
  balanceNeedsProof: "balance spend requires payload.proof (signed quote id)",
  balanceNeedsWallet: "balance spend requires payer_wallet",
} as const;

export function x402BadRequest(message: string, details?: Record<string, unknown>): GatewayError {
  return badRequest(message, { headers: { "x-should-retry": "false" }, ...(details ? { details } : {}) });
}

/** A network of a family no rail is registered for: `only Solana and Base x402 payments are supported`. */
export function unsupportedNetwork(registered: readonly { label: string }[]): GatewayError {
  const names = new Intl.ListFormat("en", { type: "conjunction" }).format(
    registered.map(({ label }) => label),
  );
  return x402BadRequest(`only ${names} x402 payments are supported`);
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
