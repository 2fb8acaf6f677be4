import { describe, expect, it } from "vitest";
import { countTokens } from "./tokenizer";

describe("countTokens", () => {
  it("counts ordinary text as the tokenizer does", async () => {
    expect(await countTokens("Hello w1 w2 w3 w4")).toBe(9);
    expect(await countTokens(`ok${" ok".repeat(199)}`)).toBe(200);
  });

  it("counts a megabyte of one endless word quickly, at most one token per 64 characters high", async () => {
    const started = performance.now();
    const tokens = await countTokens("y".repeat(1024 * 1024));
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(tokens).toBeGreaterThan((1024 * 1024) / 64);
    expect(tokens).toBeLessThan((1024 * 1024) / 2);
  }, 60_000);
});
