import { describe, expect, it } from "vitest";
import { affordableOutputTokens, ceilDiv, costOfUsage, splitProviderShare, worstCaseCost } from "./cost";

const price = {
  inputPer1m: 150_000n,
  outputPer1m: 600_000n,
  cacheReadPer1m: 75_000n,
  cacheWritePer1m: 150_000n,
};

describe("cost", () => {
  it.each([
    [{ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, 0n],
    [{ inputTokens: 1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, 1n], // 0.15 rounds up
    [{ inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, 150_000n],
    [{ inputTokens: 50_000, outputTokens: 20_000, cacheReadTokens: 0, cacheWriteTokens: 0 }, 19_500n],
    [{ inputTokens: 10, outputTokens: 10, cacheReadTokens: 100, cacheWriteTokens: 0 }, 15n], // 1.5+6+7.5
  ])("costOfUsage(%o) = %s", (usage, expected) => {
    expect(costOfUsage(usage, price)).toBe(expected);
  });

  it("reproduces the docs' worked example: $0.40/M in, $0.60/M out, 50k in, 20k out = $0.032, split 80/20", () => {
    const gross = costOfUsage(
      { inputTokens: 50_000, outputTokens: 20_000, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { inputPer1m: 400_000n, outputPer1m: 600_000n, cacheReadPer1m: 400_000n, cacheWritePer1m: 400_000n },
    );
    expect(gross).toBe(32_000n);
    expect(splitProviderShare(gross)).toEqual({ provider: 25_600n, treasury: 6_400n });
  });

  it("splits never lose a microunit", () => {
    for (const gross of [0n, 1n, 3n, 7n, 99n, 12_345n]) {
      const share = splitProviderShare(gross);
      expect(share.provider + share.treasury).toBe(gross);
    }
  });

  it("worst case uses the dearest input rate and the full output limit", () => {
    const dearWrite = { ...price, cacheWritePer1m: 300_000n };
    expect(worstCaseCost(1_000_000, 0, dearWrite)).toBe(300_000n);
    expect(worstCaseCost(0, 1_000_000, price)).toBe(600_000n);
  });

  it("affordable output tokens never let the worst case exceed the budget", () => {
    for (const budget of [1n, 50n, 1_000n, 123_456n]) {
      const tokens = affordableOutputTokens(budget, 100, price);
      if (tokens > 0) expect(worstCaseCost(100, tokens, price) <= budget).toBe(true);
      expect(worstCaseCost(100, tokens + 1, price) > budget || tokens === 0).toBe(true);
    }
    expect(affordableOutputTokens(10n, 1_000_000, price)).toBe(0);
  });

  it("ceilDiv rounds up", () => {
    expect(ceilDiv(0n, 10n)).toBe(0n);
    expect(ceilDiv(1n, 10n)).toBe(1n);
    expect(ceilDiv(10n, 10n)).toBe(1n);
    expect(ceilDiv(11n, 10n)).toBe(2n);
  });
});

describe("a per-request price", () => {
  const fixed = {
    inputPer1m: 0n,
    outputPer1m: 0n,
    cacheReadPer1m: 0n,
    cacheWritePer1m: 0n,
    requestPrice: 100_000n,
  };
  it.each([
    [{ inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }],
    [{ inputTokens: 100_000, outputTokens: 50_000, cacheReadTokens: 7, cacheWriteTokens: 3 }],
  ])("costs its price whatever the tokens (%o)", (usage) => {
    expect(costOfUsage(usage, fixed)).toBe(100_000n);
    expect(worstCaseCost(usage.inputTokens, usage.outputTokens, fixed)).toBe(100_000n);
  });
  it("leaves no output budget until the price itself is covered", () => {
    expect(affordableOutputTokens(99_999n, 10, fixed)).toBe(0);
    expect(affordableOutputTokens(100_000n, 10, fixed)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
