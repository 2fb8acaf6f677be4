import { describe, expect, it } from "vitest";
import { usdToMicrounits } from "./usd-input";

describe("usdToMicrounits", () => {
  it("reads dollars exactly, to the microunit", () => {
    expect(usdToMicrounits("5")).toBe(5_000_000n);
    expect(usdToMicrounits("$0.10")).toBe(100_000n);
    expect(usdToMicrounits("0.000001")).toBe(1n);
    expect(usdToMicrounits("19.99")).toBe(19_990_000n);
  });
  it("refuses what is not an amount", () => {
    for (const text of ["", "-1", "1e3", "0.0000001", "abc", "1,000", "NaN"])
      expect(usdToMicrounits(text)).toBeUndefined();
  });
});
