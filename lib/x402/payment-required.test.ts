import { address } from "@solana/kit";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import { describe, expect, it } from "vitest";
import { USDC_DEVNET_MINT, WSOL_MINT } from "../chains/solana/constants";
import { buildPaymentRequired, quoteMemo, standardRequirements } from "./payment-required";
import type { StoredQuote } from "./quote-store";

const quote: StoredQuote = {
  id: "24c7f4e2-5b1e-4c63-9f0e-0a4cbe1c2f6d",
  method: "POST",
  path: "/proxy/x402/v1/chat/completions",
  bodyHash: "ab".repeat(32),
  model: "gpt-4o-mini",
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  payTo: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
  capMicrounits: 35n,
  capLamports: 234n,
  microUsdPerSol: 150_000_000n,
  standardMicrounits: 10_000n,
  standardLamports: 66_667n,
  feePayer: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  createdAt: new Date("2026-09-18T18:46:46Z"),
  expiresAt: new Date("2026-09-18T18:51:46Z"),
  consumedAt: null,
  consumedBy: null,
};

const build = (overrides: Partial<StoredQuote> = {}) =>
  buildPaymentRequired({
    quote: { ...quote, ...overrides },
    usdcMint: address(USDC_DEVNET_MINT),
    resourceUrl: "https://gateway.example/proxy/x402/v1/chat/completions",
    maxTimeoutSeconds: 300,
  });

describe("buildPaymentRequired", () => {
  it("orders native USDC, native SOL, standard USDC, standard wSOL, and validates as x402 v2", () => {
    const document = build();
    expect(document.accepts.map((entry) => entry.asset)).toEqual([
      "USDC",
      "SOL",
      USDC_DEVNET_MINT,
      WSOL_MINT,
    ]);
    expect(PaymentRequiredV2Schema.safeParse(document).success).toBe(true);
    expect(document.accepts[0]).toMatchObject({
      amount_microunits: 35,
      amount: "35",
      expires_at: "2026-09-18T18:51:46.000Z",
    });
    expect(document.accepts[1]).toMatchObject({ amount_microunits: 234, amount: "234" });
    expect(document.accepts[3]?.extra).toEqual({
      feePayer: quote.feePayer,
      memo: quoteMemo(quote.id),
      quote_id: quote.id,
    });
  });

  it("offers only what the quote priced: no SOL without a rate, no standard entries without a fee payer", () => {
    const usdcOnly = build({
      capLamports: null,
      standardLamports: null,
      microUsdPerSol: null,
      feePayer: null,
    });
    expect(usdcOnly.accepts.map((entry) => entry.asset)).toEqual(["USDC"]);
    expect(PaymentRequiredV2Schema.safeParse(usdcOnly).success).toBe(true);
  });

  it("verifies standard payments against our own requirements, memo included", () => {
    expect(standardRequirements(quote, { mint: address(USDC_DEVNET_MINT), amount: 10_000n }, 300)).toEqual({
      scheme: "exact",
      network: quote.network,
      asset: USDC_DEVNET_MINT,
      amount: "10000",
      payTo: quote.payTo,
      maxTimeoutSeconds: 300,
      extra: { feePayer: quote.feePayer, memo: `pod-x402:${quote.id}` },
    });
  });
});
