import { describe, expect, it } from "vitest";
import { describeFee, quoteCard } from "./card-fee";

const stripeUs = { mode: "pass_on", percentBps: 290, fixedCents: 30 } as const;

describe("quoteCard", () => {
  it("passes Stripe's fee on so the gateway nets at least the credit, and no more than a cent over", () => {
    for (const credit of [500, 1000, 2000, 5000, 10_000, 50_000, 1234]) {
      const quote = quoteCard(stripeUs, credit);
      const stripeFee = (total: number) => Math.ceil((total * 290) / 10_000) + 30;
      expect(quote.totalCents - stripeFee(quote.totalCents)).toBeGreaterThanOrEqual(credit);
      expect(quote.totalCents - 1 - stripeFee(quote.totalCents - 1)).toBeLessThan(credit);
      expect(quote.feeCents).toBe(quote.totalCents - credit);
    }
    expect(quoteCard(stripeUs, 2000)).toEqual({ creditCents: 2000, feeCents: 91, totalCents: 2091 });
  });

  it("absorbs: the payer is charged the credit", () => {
    expect(quoteCard({ ...stripeUs, mode: "absorb" }, 2000)).toEqual({
      creditCents: 2000,
      feeCents: 0,
      totalCents: 2000,
    });
    expect(describeFee({ ...stripeUs, mode: "absorb" })).toContain("pays Stripe");
    expect(describeFee(stripeUs)).toContain("2.9% + $0.30");
  });

  it("refuses non-integer or non-positive cents", () => {
    expect(() => quoteCard(stripeUs, 0)).toThrow(RangeError);
    expect(() => quoteCard(stripeUs, 10.5)).toThrow(RangeError);
  });
});
