import { describe, expect, it } from "vitest";
import { formatDuration, formatUsd } from "./format";

describe("formatUsd", () => {
  it("never shows a balance as less than it is", () => {
    expect(formatUsd(20_000_000n - 800n)).toBe("$19.9992");
    expect(formatUsd(19_999_999n)).toBe("$19.999999");
    expect(formatUsd(20_000_000n)).toBe("$20.00");
    expect(formatUsd(0n)).toBe("$0.00");
    expect(formatUsd(1n)).toBe("$0.000001");
    expect(formatUsd(1_234_567_890_000n)).toBe("$1,234,567.89");
    expect(formatUsd(-2_500n)).toBe("−$0.0025");
  });
});

describe("formatDuration", () => {
  it("says a span in the largest unit that divides it", () => {
    expect(formatDuration(600)).toBe("10 min");
    expect(formatDuration(7200)).toBe("2 h");
    expect(formatDuration(5400)).toBe("90 min");
    expect(formatDuration(90)).toBe("90 s");
    expect(formatDuration(45)).toBe("45 s");
  });
});
