import { address } from "@solana/kit";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import { describe, expect, it } from "vitest";
import { USDC_DEVNET_MINT, WSOL_MINT } from "../../../chains/solana/constants";
import { buildPaymentRequired, type PaymentRequiredDocument } from "../../core/payment-required";
import type { QuoteOption, StoredQuote } from "../../core/quote-store";
import { exactOptionFor, SOLANA_EXACT, SOLANA_NATIVE } from "./mechanisms";
import { quoteMemo, solanaAccepts, standardRequirements } from "./solana-accepts";

const quoteId = "24c7f4e2-5b1e-4c63-9f0e-0a4cbe1c2f6d";
const network = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const payTo = "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS";
const feePayer = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const rate = { micro_usd_per_sol: "150000000" };

const option = (
  position: number,
  mechanism: string,
  asset: string,
  amount: bigint,
  details = {},
): QuoteOption => ({
  quoteId,
  position,
  mechanism,
  network,
  asset,
  payTo,
  amount,
  details,
});

const allOptions = [
  option(0, SOLANA_NATIVE, "USDC", 35n),
  option(1, SOLANA_NATIVE, "SOL", 234n, rate),
  option(2, SOLANA_EXACT, "USDC", 10_000n, { fee_payer: feePayer }),
  option(3, SOLANA_EXACT, "SOL", 66_667n, { fee_payer: feePayer, ...rate }),
];

const quote: StoredQuote = {
  id: quoteId,
  method: "POST",
  path: "/proxy/x402/v1/chat/completions",
  bodyHash: "ab".repeat(32),
  model: "gpt-4o-mini",
  capMicrounits: 35n,
  createdAt: new Date("2026-09-18T18:46:46Z"),
  expiresAt: new Date("2026-09-18T18:51:46Z"),
  consumedAt: null,
  consumedBy: null,
  options: allOptions,
};

const resourceUrl = "https://gateway.example/proxy/x402/v1/chat/completions";

const build = (options: QuoteOption[] = allOptions): PaymentRequiredDocument => {
  const withOptions = { ...quote, options };
  const accepts = solanaAccepts({
    quote: withOptions,
    options,
    usdcMint: address(USDC_DEVNET_MINT),
    resourceUrl,
    maxTimeoutSeconds: 300,
  });
  return buildPaymentRequired(withOptions, accepts, resourceUrl);
};

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
      feePayer,
      memo: quoteMemo(quote.id),
      quote_id: quote.id,
    });
  });

  it("offers only what the quote priced: no SOL without a rate, no standard entries without a fee payer", () => {
    const usdcOnly = build([option(0, SOLANA_NATIVE, "USDC", 35n)]);
    expect(usdcOnly.accepts.map((entry) => entry.asset)).toEqual(["USDC"]);
    expect(PaymentRequiredV2Schema.safeParse(usdcOnly).success).toBe(true);
  });

  it("verifies standard payments against our own requirements, memo included", () => {
    const usdc = exactOptionFor(quote, USDC_DEVNET_MINT, address(USDC_DEVNET_MINT));
    if (!usdc) throw new Error("the quote has a co-signed USDC option");
    expect(standardRequirements(quote, usdc, address(USDC_DEVNET_MINT), 300)).toEqual({
      scheme: "exact",
      network,
      asset: USDC_DEVNET_MINT,
      amount: "10000",
      payTo,
      maxTimeoutSeconds: 300,
      extra: { feePayer, memo: `pod-x402:${quote.id}` },
    });
  });

  it("maps a client's mint to our own option, and nothing else to any", () => {
    const usdcMint = address(USDC_DEVNET_MINT);
    expect(exactOptionFor(quote, USDC_DEVNET_MINT, usdcMint)?.amount).toBe(10_000n);
    expect(exactOptionFor(quote, WSOL_MINT, usdcMint)?.amount).toBe(66_667n);
    // Another token, the pay-to wallet, a ticker in the wrong case: not an option of this quote.
    for (const named of [feePayer, payTo, "usdc", "So11111111111111111111111111111111111111111"]) {
      expect(exactOptionFor(quote, named, usdcMint)).toBeUndefined();
    }
    // A quote priced without a SOL rate offers no wrapped-SOL option, whatever the client names.
    const usdcOnly = { ...quote, options: allOptions.filter((entry) => entry.asset === "USDC") };
    expect(exactOptionFor(usdcOnly, WSOL_MINT, usdcMint)).toBeUndefined();
  });
});
