import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors/gateway-error";
import { formatUsdc, parseUsdcAmount } from "./usdc-amount";

describe("USDC amounts", () => {
  it.each([
    [25, 25_000_000n],
    ["12.5", 12_500_000n],
    [0.000001, 1n],
    ["0.123456", 123_456n],
  ])("%s USDC is %s microunits", (input, expected) => {
    expect(parseUsdcAmount(input, "cap")).toBe(expected);
    expect(parseUsdcAmount(formatUsdc(expected), "cap")).toBe(expected);
  });

  it.each([-1, "1.2345678", "abc", Number.NaN, 1e-7, "1e3"])("%s is refused", (input) => {
    expect(() => parseUsdcAmount(input, "cap")).toThrow(GatewayError);
  });

  it("formats without trailing zeros", () => {
    expect(formatUsdc(12_500_000n)).toBe("12.5");
    expect(formatUsdc(3_000_000n)).toBe("3");
  });
});
