import { describe, expect, it } from "vitest";
import { camelKeys } from "./camel-keys";

describe("wire keys to domain keys", () => {
  it("camel-cases every key, digits included, and keeps the values as they are", () => {
    const price = 1_250_000n;
    expect(
      camelKeys({
        cache_read_per_1m: price,
        supports_structured_output: false,
        name: "x",
        absent: undefined,
      }),
    ).toStrictEqual({ cacheReadPer1m: price, supportsStructuredOutput: false, name: "x", absent: undefined });
  });
});
