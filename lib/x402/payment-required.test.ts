import { address } from "@solana/kit";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import { describe, expect, it } from "vitest";
import { USDC_DEVNET_MINT, WSOL_MINT } from "../chains/solana/constants";
import {
  buildPaymentRequired,
  type PaymentRequiredDocument,
  quoteMemo,
  solanaAccepts,
  standardRequirements,
} from "./payment-required";
import type { QuoteOption, StoredQuote } from "./quote-store";
import { SOLANA_EXACT_RAIL, SOLANA_NATIVE_RAIL, solanaTermsOf } from "./solana-terms";

const quoteId = "24c7f4e2-5b1e-4c63-9f0e-0a4cbe1c2f6d";
const network = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const payTo = "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS";
const feePayer = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const rate = { micro_usd_per_sol: "150000000" };

const option = (
  position: number,
  rail: string,
  asset: string,
  amount: bigint,
  details = {},
): QuoteOption => ({
  quoteId,
  position,
  rail,
  network,
  asset,
  payTo,
  amount,
  details,
});

const allOptions = [
  option(0, SOLANA_NATIVE_RAIL, "USDC", 35n),
  option(1, SOLANA_NATIVE_RAIL, "SOL", 234n, rate),
  option(2, SOLANA_EXACT_RAIL, "USDC", 10_000n, { fee_payer: feePayer }),
  option(3, SOLANA_EXACT_RAIL, "SOL", 66_667n, { fee_payer: feePayer, ...rate }),
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
  const terms = solanaTermsOf(withOptions);
  if (!terms) throw new Error("no Solana terms");
  const accepts = solanaAccepts({
    quote: withOptions,
    terms,
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
    const usdcOnly = build([option(0, SOLANA_NATIVE_RAIL, "USDC", 35n)]);
    expect(usdcOnly.accepts.map((entry) => entry.asset)).toEqual(["USDC"]);
    expect(PaymentRequiredV2Schema.safeParse(usdcOnly).success).toBe(true);
  });

  it("verifies standard payments against our own requirements, memo included", () => {
    expect(standardRequirements(quote, { mint: address(USDC_DEVNET_MINT), amount: 10_000n }, 300)).toEqual({
      scheme: "exact",
      network,
      asset: USDC_DEVNET_MINT,
      amount: "10000",
      payTo,
      maxTimeoutSeconds: 300,
      extra: { feePayer, memo: `pod-x402:${quote.id}` },
    });
  });
});
