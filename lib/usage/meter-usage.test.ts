import { beforeAll, describe, expect, it } from "vitest";
import type { UsageClaim } from "../dialects/usage/usage-claim";
import { type MeterInput, meterUsage } from "./meter-usage";
import { RelayedContent } from "./relayed-content";
import { countTokens } from "./tokenizer";

const prompt = JSON.stringify({
  model: "m",
  max_tokens: 20,
  messages: [{ role: "user", content: "Write one short sentence about the sea." }],
});

function relayed(text: string): () => RelayedContent {
  const content = new RelayedContent();
  content.add(text);
  return () => content;
}

function claim(input: number, output: number): UsageClaim {
  return {
    type: "read",
    usage: { inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 },
    reasoningTokens: undefined,
    outputReported: true,
  };
}

const answer = "The sea is wide and deep and full of quiet light.";

function input(overrides: Partial<MeterInput>): MeterInput {
  return {
    family: "o200k",
    trusted: false,
    forwardedBody: prompt,
    maxInputTokens: 200,
    maxOutputTokens: 20,
    claim: claim(20, 13),
    content: relayed(answer),
    ...overrides,
  };
}

describe("meterUsage", () => {
  // The tokenizer's tables load once (about 150 ms, longer on a busy machine).
  beforeAll(() => countTokens("warm up"), 60_000);

  it("accepts an agent's honest claim within the tolerance", async () => {
    const metered = await meterUsage(input({}));
    expect(metered.usage).toMatchObject({ inputTokens: 20, outputTokens: 13 });
    expect(metered.findings).toEqual([]);
  });

  it("bills the gateway's count when an agent over-claims, and says so", async () => {
    const counted = await countTokens(answer);
    const metered = await meterUsage(input({ claim: claim(20, 9_000) }));
    expect(metered.usage.outputTokens).toBe(counted);
    expect(metered.findings).toMatchObject([{ kind: "over_claim" }]);
    const inflated = await meterUsage(input({ claim: claim(5_000, 13) }));
    expect(inflated.usage.inputTokens).toBeLessThan(40);
    expect(inflated.findings).toMatchObject([
      { kind: "over_claim", detail: expect.stringContaining("input") },
    ]);
  });

  it("counts a reply without usage, and a refused figure, from what was relayed", async () => {
    const counted = await countTokens(answer);
    for (const missing of [{ type: "absent" }, { type: "invalid", reason: "negative" }] as const) {
      const metered = await meterUsage(input({ claim: missing }));
      expect(metered.usage.outputTokens).toBe(counted);
      expect(metered.usage.inputTokens).toBeGreaterThan(5);
    }
  });

  it("never bills past the forwarded limit or the held input, trusted source or not", async () => {
    const long = "word ".repeat(500);
    const agent = await meterUsage(input({ claim: { type: "absent" }, content: relayed(long) }));
    expect(agent.usage.outputTokens).toBe(20);
    expect(agent.findings).toMatchObject([{ kind: "over_limit" }]);
    const vendor = await meterUsage(input({ trusted: true, claim: claim(10_000, 10_000) }));
    expect(vendor.usage).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    expect(vendor.counted).toBe(false);
    // What the vendor reported beyond the caps is not billed, but it is not lost either.
    expect(vendor.excess).toEqual({
      inputTokens: 9_800,
      outputTokens: 9_980,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    // An agent's over-claim is a finding, never an excess the gateway pays.
    expect(agent.excess).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    const overClaim = await meterUsage(input({ claim: claim(20, 9_000) }));
    expect(overClaim.excess.outputTokens).toBe(0);
  });

  it("gives up the dearest input first when capping a cached claim", async () => {
    const vendor = await meterUsage(
      input({
        trusted: true,
        maxInputTokens: 100,
        claim: {
          type: "read",
          usage: { inputTokens: 80, outputTokens: 1, cacheReadTokens: 60, cacheWriteTokens: 0 },
          reasoningTokens: undefined,
          outputReported: true,
        },
      }),
    );
    expect(vendor.usage).toMatchObject({ inputTokens: 40, cacheReadTokens: 60 });
  });
});
