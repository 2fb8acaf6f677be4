import { describe, expect, it } from "vitest";
import {
  createDefaultSolPriceSource,
  createFixedSolPriceSource,
  createHttpSolPriceSource,
  parseUsdPrice,
  type SolPriceSource,
  usdToLamports,
  withPriceBounds,
  withPriceCache,
} from "./sol-price";

function jsonFetch(body: unknown, status = 200): typeof fetch {
  return async () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

describe("usdToLamports", () => {
  it("converts micro-USD at a micro-USD price, rounding up", () => {
    // $0.000035 at $111.00/SOL = 315.3… lamports → 316.
    expect(usdToLamports(35n, 111_000_000n)).toBe(316n);
    // Exact division does not round up.
    expect(usdToLamports(100_000_000n, 100_000_000n)).toBe(1_000_000_000n);
    expect(usdToLamports(0n, 150_000_000n)).toBe(0n);
    expect(usdToLamports(1n, 100_000_000_000n)).toBe(1n);
  });

  it("refuses a zero price and negative amounts", () => {
    expect(() => usdToLamports(1n, 0n)).toThrow(RangeError);
    expect(() => usdToLamports(-1n, 1n)).toThrow(RangeError);
  });
});

describe("parseUsdPrice", () => {
  it.each([
    ["143.52", 143_520_000n],
    [143.52, 143_520_000n],
    ["0.1234567", 123_456n],
    ["100", 100_000_000n],
  ] as const)("parses %s", (input, expected) => {
    expect(parseUsdPrice(input)).toBe(expected);
  });

  it.each([["-1"], ["1e3"], [Number.NaN], [null], ["12,5"]])("rejects %s", (input) => {
    expect(() => parseUsdPrice(input)).toThrow(/price/);
  });
});

describe("SOL price sources", () => {
  it("reads Coinbase, Jupiter and flat shapes over HTTP", async () => {
    const coinbase = createHttpSolPriceSource({
      fetch: jsonFetch({ data: { amount: "150.25", base: "SOL" } }),
    });
    expect((await coinbase.getPrice()).microUsdPerSol).toBe(150_250_000n);
    const jupiter = createHttpSolPriceSource({
      url: "https://price.example/v2",
      fetch: jsonFetch({ data: { So11111111111111111111111111111111111111112: { price: "149.9" } } }),
    });
    expect(await jupiter.getPrice()).toMatchObject({ microUsdPerSol: 149_900_000n, source: "price.example" });
    const custom = createHttpSolPriceSource({ fetch: jsonFetch({ p: 1 }), extractPrice: () => "151" });
    expect((await custom.getPrice()).microUsdPerSol).toBe(151_000_000n);
  });

  it("fails cleanly on network errors, bad status and bad payloads", async () => {
    const offline = createHttpSolPriceSource({
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    await expect(offline.getPrice()).rejects.toMatchObject({ name: "SolPriceError", reason: "fetch_failed" });
    const down = createHttpSolPriceSource({ fetch: jsonFetch({}, 503) });
    await expect(down.getPrice()).rejects.toMatchObject({ reason: "bad_status" });
    const weird = createHttpSolPriceSource({ fetch: jsonFetch({ data: { amount: "lots" } }) });
    await expect(weird.getPrice()).rejects.toMatchObject({ reason: "bad_payload" });
  });

  it("rejects prices outside the sanity bounds", async () => {
    await expect(withPriceBounds(createFixedSolPriceSource(500_000n)).getPrice()).rejects.toMatchObject({
      reason: "out_of_bounds",
    });
    await expect(
      withPriceBounds(createFixedSolPriceSource(100_001_000_000n)).getPrice(),
    ).rejects.toMatchObject({
      reason: "out_of_bounds",
    });
    expect((await withPriceBounds(createFixedSolPriceSource(150_000_000n)).getPrice()).microUsdPerSol).toBe(
      150_000_000n,
    );
  });

  it("caches within the TTL, shares in-flight requests and does not cache failures", async () => {
    let calls = 0;
    let fail = false;
    const counting: SolPriceSource = {
      async getPrice() {
        calls += 1;
        if (fail) throw new Error("down");
        return { microUsdPerSol: BigInt(100 + calls) * 1_000_000n, observedAt: new Date(), source: "test" };
      },
    };
    let now = 0;
    const cached = withPriceCache(counting, { ttlMs: 1_000, now: () => now });
    const [first, second] = await Promise.all([cached.getPrice(), cached.getPrice()]);
    expect(first).toBe(second);
    expect(calls).toBe(1);
    now = 999;
    expect((await cached.getPrice()).microUsdPerSol).toBe(101_000_000n);
    now = 1_000;
    fail = true;
    await expect(cached.getPrice()).rejects.toThrow("down");
    fail = false;
    expect((await cached.getPrice()).microUsdPerSol).toBe(103_000_000n);
  });

  it("composes the default source from a live URL", async () => {
    const source = createDefaultSolPriceSource({ fetch: jsonFetch({ data: { amount: "0.5" } }) });
    await expect(source.getPrice()).rejects.toMatchObject({ reason: "out_of_bounds" });
  });
});
