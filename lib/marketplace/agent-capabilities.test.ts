import { describe, expect, it } from "vitest";
import { buildCatalogIndex } from "../catalog/catalog-index";
import type { CatalogModel } from "../catalog/models";
import { perRequestPrice } from "../pricing/cost";
import { reviewCapabilities } from "./agent-capabilities";

const model = (id: string, price: CatalogModel["prices"][number]): CatalogModel => ({
  id,
  ownedBy: "acme",
  kind: "chat",
  contextWindow: 8_000,
  maxOutputTokens: 1_000,
  inputModalities: ["text"],
  outputModalities: ["text"],
  aliases: [],
  prices: [price],
  capabilities: { tools: false, vision: false, reasoning: false, structuredOutput: false },
});

const catalog = buildCatalogIndex([
  model("per-request", { provider: "openai", upstreamModelId: "x", ...perRequestPrice(120_000n) }),
  model("per-token", {
    provider: "openai",
    upstreamModelId: "y",
    inputPer1m: 1_000_000n,
    outputPer1m: 1_000_000n,
    cacheReadPer1m: 1_000_000n,
    cacheWritePer1m: 1_000_000n,
  }),
]);

const review = (model_id: string, price: { input: number; output: number; request?: number }) =>
  reviewCapabilities(catalog, {
    type: "capabilities",
    models: [
      {
        model_id,
        input_per_1m: price.input,
        output_per_1m: price.output,
        ...(price.request === undefined ? {} : { request_price_microunits: price.request }),
        max_concurrent: 2,
      },
    ],
  });

describe("a per-request offer", () => {
  it("is accepted at or below the model's per-request cap, as a price per request", () => {
    expect(review("per-request", { input: 0, output: 0, request: 120_000 }).offers).toEqual([
      expect.objectContaining({ inputPer1m: 0n, outputPer1m: 0n, requestPrice: 120_000n }),
    ]);
  });
  it.each([
    ["above the cap", "per-request", { input: 0, output: 0, request: 120_001 }, /above the cap/],
    [
      "on a model sold only per token",
      "per-token",
      { input: 0, output: 0, request: 1 },
      /not sold per request/,
    ],
    ["with token prices beside it", "per-request", { input: 1, output: 1, request: 1 }, /no token prices/],
    ["of zero", "per-request", { input: 0, output: 0, request: 0 }, /no price/],
  ])("is refused %s, with the reason", (_name, id, price, reason) => {
    const verdict = review(id, price);
    expect(verdict.offers).toEqual([]);
    expect(verdict.rejected[0]?.reason).toMatch(reason);
  });
  it("a per-token offer on a model sold only per request has nothing to be capped by", () => {
    expect(review("per-request", { input: 1, output: 1 }).offers).toEqual([]);
  });
});
