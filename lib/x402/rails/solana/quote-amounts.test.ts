import { describe, expect, it } from "vitest";
import { SPONSORED_MINIMUM_MICROUNITS } from "../../core/quote-floors";
import { lamportsToMicrounits, quoteAmounts } from "./quote-amounts";

describe("quoteAmounts", () => {
  it("floors standard entries at one cent and keeps the native cap as is", () => {
    const amounts = quoteAmounts(35n, 150_000_000n);
    expect(amounts.capMicrounits).toBe(35n);
    expect(amounts.standardMicrounits).toBe(SPONSORED_MINIMUM_MICROUNITS);
    // 35 µUSD at $150/SOL is 233.33… lamports: rounded up.
    expect(amounts.sol).toEqual({
      microUsdPerSol: 150_000_000n,
      capLamports: 234n,
      standardLamports: 66_667n,
    });
  });

  it("never quotes zero", () => {
    expect(quoteAmounts(0n, undefined)).toEqual({ capMicrounits: 1n, standardMicrounits: 10_000n });
  });

  it("keeps caps above the floor on the standard entries too", () => {
    expect(quoteAmounts(123_456n, undefined).standardMicrounits).toBe(123_456n);
  });
});

describe("lamportsToMicrounits", () => {
  it("credits a full SOL payment with at least the cap, for any rate", () => {
    for (const rate of [1_000_000n, 97_123_457n, 150_000_000n, 333_333_333n, 99_999_999_999n]) {
      for (const cap of [1n, 35n, 9_999n, 10_000n, 1_234_567n]) {
        const { sol } = quoteAmounts(cap, rate);
        if (!sol) throw new Error("expected SOL amounts");
        expect(lamportsToMicrounits(sol.capLamports, rate)).toBeGreaterThanOrEqual(cap);
        expect(lamportsToMicrounits(sol.standardLamports, rate)).toBeGreaterThanOrEqual(
          cap > 10_000n ? cap : 10_000n,
        );
      }
    }
  });

  it("rounds down, so an underpayment never rounds up to the cap", () => {
    expect(lamportsToMicrounits(233n, 150_000_000n)).toBe(34n);
    expect(lamportsToMicrounits(0n, 150_000_000n)).toBe(0n);
  });
});
