import { describe, expect, it } from "vitest";
import { canonicalModelId, decimalToMicrounits } from "./catalog-entry";
import { datasetEntries, entriesFromModelsDevProvider } from "./dataset-entries";

describe("prices from outside, read exactly", () => {
  it.each([
    ["0.000003", 12, 3_000_000n],
    ["0.00000015", 12, 150_000n],
    ["0.0000000000001", 12, 1n],
    [0.15, 6, 150_000n],
    [3, 6, 3_000_000n],
    ["1.25", 6, 1_250_000n],
  ] as const)("%j at scale %d → %d microunits per 1M", (value, scale, expected) => {
    expect(decimalToMicrounits(value, scale)).toBe(expected);
  });

  it.each([["-1"], ["1e-6"], ["abc"], [""], [Number.NaN], [-0.5], ["99999999999999"], [{}]])(
    "%j is not a price",
    (value) => {
      expect(decimalToMicrounits(value, 12)).toBeUndefined();
    },
  );
});

describe("canonical ids", () => {
  it.each([
    ["anthropic/claude-sonnet-4", "claude-sonnet-4"],
    ["claude-sonnet-4-20250514", "claude-sonnet-4"],
    ["Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b"],
    ["openai/gpt-4o:extended", "gpt-4o:extended"],
  ])("%s → %s", (upstream, expected) => {
    expect(canonicalModelId(upstream)).toBe(expected);
  });
});

describe("the shipped dataset", () => {
  it("gives priced rows for each of our providers and skips free ones", () => {
    const entries = datasetEntries(["openai", "anthropic", "openrouter", "together", "groq", "venice"]);
    expect(entries.length).toBeGreaterThan(100);
    expect(entries.every((entry) => entry.inputPer1m + entry.outputPer1m > 0n)).toBe(true);
    expect(entries.some((entry) => entry.upstreamModelId.endsWith(":free"))).toBe(false);
    const sonnet = entries.find((entry) => entry.upstreamModelId === "claude-sonnet-4-20250514");
    expect(sonnet).toMatchObject({
      provider: "anthropic",
      inputPer1m: 3_000_000n,
      outputPer1m: 15_000_000n,
      cacheReadPer1m: 300_000n,
      cacheWritePer1m: 3_750_000n,
      capabilities: { tools: true, vision: true, reasoning: true },
    });
  });

  it("a hostile row (negative, absurd or missing price, huge limits) is skipped or bounded", () => {
    const entries = entriesFromModelsDevProvider("openrouter", {
      models: {
        "a/neg": { cost: { input: -1, output: 1 } },
        "a/none": {},
        "a/huge": { cost: { input: 1e20, output: 1 } },
        "a/ok": { cost: { input: 1, output: 2 }, limit: { context: 1e12, output: -5 } },
      },
    });
    expect(entries.map((entry) => entry.upstreamModelId)).toEqual(["a/ok"]);
    expect(entries[0]).toMatchObject({ contextWindow: 100_000_000, maxOutputTokens: 4096, ownedBy: "a" });
  });
});
