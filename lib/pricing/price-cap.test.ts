import { describe, expect, it } from "vitest";
import type { TokenPrice } from "./cost";
import { cappedListingPrice, centralizedCap } from "./price-cap";

const price = (input: number, output: number, read = input, write = input): TokenPrice => ({
  inputPer1m: BigInt(input),
  outputPer1m: BigInt(output),
  cacheReadPer1m: BigInt(read),
  cacheWritePer1m: BigInt(write),
});

describe("centralizedCap", () => {
  it("takes the lowest published price on each axis, whichever provider it comes from", () => {
    expect(centralizedCap([price(590, 790), price(130, 400), price(880, 300, 50, 900)])).toEqual(
      price(130, 300, 50, 130),
    );
  });
  it("has no cap without a published price", () => {
    expect(centralizedCap([])).toBeUndefined();
  });
});

describe("cappedListingPrice", () => {
  const cap = price(150, 600, 75, 190);
  it.each([
    ["below on both axes", 100, 500, price(100, 500, 75, 100)],
    ["equal to the cap", 150, 600, price(150, 600, 75, 150)],
    ["above on input only", 151, 100, undefined],
    ["above on output only", 10, 601, undefined],
    ["free", 0, 0, price(0, 0, 0, 0)],
  ])("a listing %s", (_name, input, output, expected) => {
    expect(cappedListingPrice({ inputPer1m: BigInt(input), outputPer1m: BigInt(output) }, cap)).toEqual(
      expected,
    );
  });
  it("never routes a listing when no cap is known", () => {
    expect(cappedListingPrice({ inputPer1m: 1n, outputPer1m: 1n }, undefined)).toBeUndefined();
  });
});

describe("per-request prices", () => {
  const perRequest = (requestPrice: number): TokenPrice => ({
    ...price(0, 0),
    requestPrice: BigInt(requestPrice),
  });
  it("are capped by the lowest per-request price only; per-token prices never cap them", () => {
    expect(centralizedCap([perRequest(100_000), perRequest(90_000)])?.requestPrice).toBe(90_000n);
    expect(centralizedCap([price(150, 600)])?.requestPrice).toBeUndefined();
  });
  it("a per-request listing is routed at its price when within the per-request cap, never otherwise", () => {
    const listing = { inputPer1m: 0n, outputPer1m: 0n, requestPrice: 80_000n };
    expect(cappedListingPrice(listing, centralizedCap([perRequest(90_000)]))).toEqual(perRequest(80_000));
    expect(cappedListingPrice(listing, centralizedCap([perRequest(70_000)]))).toBeUndefined();
    expect(cappedListingPrice(listing, centralizedCap([price(1_000_000, 1_000_000)]))).toBeUndefined();
  });
  it("a per-token listing on a model sold only per request has nothing to be capped by", () => {
    expect(
      cappedListingPrice({ inputPer1m: 1n, outputPer1m: 1n }, centralizedCap([perRequest(1)])),
    ).toBeUndefined();
  });
});
