import { GatewayError } from "../../../errors/gateway-error";

/** The Solana rail's own caller-facing messages; the reference service's wording is kept verbatim. */
export const solanaMessages = {
  notFound: "Solana transaction not found or not yet confirmed",
  signatureUsed: "x402 payment signature has already been used to settle a quote",
  budgetExhausted:
    "x402 sponsored-fee daily budget is exhausted: pay with a self-broadcast USDC or SOL transfer (the native accepts entries) instead",
} as const;

export function sponsoredBudgetExhausted(): GatewayError {
  return new GatewayError("service_unavailable", solanaMessages.budgetExhausted, {
    headers: { "x-should-retry": "false" },
    details: { reason: "sponsored_fee_budget_exhausted" },
  });
}
