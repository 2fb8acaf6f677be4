import { describe, expect, it } from "vitest";
import { canonicalModelId, decimalToMicrounits, ownerOf, soldPrices } from "./catalog-entry";
import { datasetEntries, entriesFromModelsDevProvider } from "./dataset-entries";
import { modelFamily, modelSlug, traitsIndex } from "./model-traits";

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

describe("a source's price row", () => {
  it("bills an unstated cache rate as plain input, a stated one as stated", () => {
    expect(soldPrices({ input: "0.000003", output: "0.000015", cacheRead: "0.0000003" }, 12)).toEqual({
      inputPer1m: 3_000_000n,
      outputPer1m: 15_000_000n,
      cacheReadPer1m: 300_000n,
      cacheWritePer1m: 3_000_000n,
    });
  });

  it.each([
    [{ input: "-1", output: "-1" }],
    [{ input: "0", output: "0" }],
    [{ input: "1", output: undefined }],
  ])("%j is not sold", (stated) => {
    expect(soldPrices(stated, 12)).toBeUndefined();
  });

  it("takes the owner from a vendor prefix, else the listing host", () => {
    expect(ownerOf("Meta-Llama/Llama-3.3-70B", "together")).toBe("meta-llama");
    expect(ownerOf("gpt-4o", "openai")).toBe("openai");
    expect(ownerOf("/odd", "openrouter")).toBe("openrouter");
  });
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
  it("gives priced rows for each of our providers, skips free and unservable ones", async () => {
    const entries = await datasetEntries(["openai", "anthropic", "openrouter", "together", "groq", "venice"]);
    expect(entries.length).toBeGreaterThan(500);
    expect(entries.every((entry) => entry.inputPer1m + entry.outputPer1m > 0n)).toBe(true);
    expect(entries.some((entry) => entry.upstreamModelId.endsWith(":free"))).toBe(false);
    // OpenRouter's moving `~vendor/…-latest` pointers and image or realtime models are not sold.
    expect(entries.some((entry) => /^~|image|realtime/.test(entry.upstreamModelId))).toBe(false);
    const sonnet = entries.find((entry) => entry.upstreamModelId === "claude-sonnet-4-5-20250929");
    expect(sonnet).toMatchObject({
      provider: "anthropic",
      kind: "chat",
      inputPer1m: 3_000_000n,
      outputPer1m: 15_000_000n,
      cacheReadPer1m: 300_000n,
      cacheWritePer1m: 3_750_000n,
      capabilities: { tools: true, vision: true, reasoning: true },
    });
    // A model newer than the capabilities snapshot takes its family's traits, bounded by its context.
    const newer = entries.find((entry) => entry.upstreamModelId === "claude-opus-5");
    expect(newer).toMatchObject({ capabilities: { tools: true, vision: true }, maxOutputTokens: 32_000 });
    expect(entries.find((entry) => entry.upstreamModelId === "text-embedding-ada-002")).toMatchObject({
      kind: "embedding",
      maxOutputTokens: 0,
      capabilities: { tools: false },
    });
    for (const entry of entries) expect(entry.maxOutputTokens).toBeLessThanOrEqual(entry.contextWindow);
    // Loading both packages takes about a second alone, several on a busy machine.
  }, 60_000);

  it("matches traits by id, then slug, then family, else assumes text and tools only", () => {
    const traitsOf = traitsIndex([
      {
        id: "anthropic",
        models: {
          "claude-sonnet-4-5-20250929": {
            tool_call: true,
            reasoning: true,
            release_date: "2025-09-29",
            modalities: { input: ["text", "image"], output: ["text"] },
            limit: { context: 200_000, output: 64_000 },
          },
          "claude-sonnet-3-7": { tool_call: false, release_date: "2025-02-19", limit: { output: 8_000 } },
        },
      },
      { id: "groq", models: { "openai/gpt-oss-20b": { tool_call: true, limit: { output: 65_536 } } } },
    ]);
    expect(traitsOf("anthropic", "claude-sonnet-4-5-20250929")).toMatchObject({ matched: "id", tools: true });
    expect(traitsOf("openrouter", "anthropic/claude-sonnet-4.5")).toMatchObject({
      matched: "id",
      inputModalities: ["text", "image"],
    });
    // The newest of the family, not the first one seen.
    expect(traitsOf("anthropic", "claude-sonnet-4-7")).toMatchObject({
      matched: "family",
      maxOutputTokens: 64_000,
    });
    expect(traitsOf("venice", "openai-gpt-oss-120b")).toMatchObject({
      matched: "family",
      maxOutputTokens: 65_536,
    });
    expect(traitsOf("together", "acme/rocket-9")).toMatchObject({
      matched: "none",
      tools: true,
      inputModalities: ["text"],
      maxOutputTokens: undefined,
    });
  });

  it.each([
    ["anthropic/claude-sonnet-4.5-20250929:thinking", "claude-sonnet-4-5", "claude-sonnet"],
    ["qwen/qwen3.7-max", "qwen3-7-max", "qwen-max"],
    ["gpt-4o-mini-2024-07-18", "gpt-4o-mini", "gpt-mini"],
    ["deepseek-ai/DeepSeek-V4-Flash-0731", "deepseek-v4-flash", "deepseek-v-flash"],
  ])("%s has slug %s and family %s", (id, slug, family) => {
    expect(modelSlug(id)).toBe(slug);
    expect(modelFamily(modelSlug(id))).toBe(family);
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
