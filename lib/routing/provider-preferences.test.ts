import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors/gateway-error";
import { orderByScore, orderBySort } from "./performance-order";
import { admittedBy, applyOrder, usedParameters } from "./preference-filter";
import { type ProviderPreferences, readBodyRouting, stricterCeilings } from "./provider-preferences";
import { type RoutingPolicy, selectCandidates } from "./select-candidates";
import { performanceKey, SourcePerformance } from "./source-performance";
import { testCandidate as c } from "./test-candidates";

const cheapSlow = c("openai", "centralized", 100, 100);
const dearFast = c("openrouter", "centralized", 300, 300);
const host = {
  ...c("cccccccc-0000-4000-8000-000000000003", "marketplace", 50, 50, "2026-01-03"),
  quantization: "fp8",
};

function preferences(provider: unknown): ProviderPreferences {
  const value = readBodyRouting({ model: "m", messages: [], provider }).preferences;
  if (!value) throw new Error("no preferences read");
  return value;
}

function policy(extra: Partial<RoutingPolicy> = {}): RoutingPolicy {
  return {
    mode: "auto",
    ceilings: {},
    pins: undefined,
    isDemoted: () => false,
    maxMarketAttempts: 4,
    ...extra,
  };
}

const ids = (selection: ReturnType<typeof selectCandidates>) =>
  selection.type === "selected"
    ? selection.candidates.map((candidate) => candidate.providerId)
    : selection.type;

describe("reading the OpenRouter routing fields from a body", () => {
  it("takes provider, models and route out of the body the upstream gets", () => {
    const read = readBodyRouting({
      model: "a",
      messages: [],
      models: ["a", "b", "c", "b"],
      route: "fallback",
      provider: {
        order: ["OpenAI"],
        sort: { by: "throughput" },
        max_price: { prompt: "0.5", completion: 2 },
      },
    });
    expect(read.body).toEqual({ model: "a", messages: [] });
    expect(read.fallbackModels).toEqual(["b", "c"]);
    expect(read.preferences).toMatchObject({
      order: ["openai"],
      sort: "throughput",
      allowFallbacks: true,
      maxPrice: { inputPer1m: 500_000n, outputPer1m: 2_000_000n },
    });
  });

  it("takes the first of models as the model when the body names none", () => {
    const read = readBodyRouting({ messages: [], models: ["x", "y"] });
    expect(read.body.model).toBe("x");
    expect(read.fallbackModels).toEqual(["y"]);
  });

  it("leaves a body without routing fields untouched (the same object)", () => {
    const body = { model: "m", messages: [] };
    expect(readBodyRouting(body).body).toBe(body);
  });

  it.each([
    [{ provider: { sort: "fastest" } }, "provider.sort"],
    [{ provider: { zdr: true } }, "provider"],
    [{ provider: { max_price: { prompt: -1 } } }, "provider.max_price.prompt"],
    [{ provider: { max_price: { prompt: "1e9" } } }, "provider.max_price.prompt"],
    [{ provider: { quantizations: ["q4_k_m"] } }, "provider.quantizations.0"],
    [{ provider: { only: Array.from({ length: 40 }, () => "x") } }, "provider.only"],
    [{ models: [] }, "models"],
    [{ route: "cheapest" }, "route"],
  ])("refuses %j with a 400 naming %s: never ignored", (fields, param) => {
    let caught: unknown;
    try {
      readBodyRouting({ model: "m", messages: [], ...fields });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).type).toBe("bad_request");
    expect((caught as GatewayError).param).toBe(param);
  });

  it("composes a header ceiling and max_price: the lower of each side wins", () => {
    expect(stricterCeilings({ inputPer1m: 100n }, { inputPer1m: 200n, outputPer1m: 50n })).toEqual({
      inputPer1m: 100n,
      outputPer1m: 50n,
    });
  });
});

describe("provider preferences on the try order", () => {
  const pools = { market: [host], centralized: [cheapSlow, dearFast] };

  it("only and ignore filter by provider name or route kind", () => {
    const only = preferences({ only: ["openrouter", "marketplace"] });
    expect(ids(selectCandidates(pools, policy({ admits: admittedBy(only, []) })))).toEqual([
      host.providerId,
      "openrouter",
    ]);
    const ignore = preferences({ ignore: ["OPENAI"] });
    expect(ids(selectCandidates(pools, policy({ admits: admittedBy(ignore, []) })))).toEqual([
      host.providerId,
      "openrouter",
    ]);
    const nothing = preferences({ only: ["deepinfra"] });
    expect(ids(selectCandidates(pools, policy({ admits: admittedBy(nothing, []) })))).toBe(
      "no_provider_preferred",
    );
  });

  it("guarantees pass only sources that declare them", () => {
    const fp8 = preferences({ quantizations: ["fp8"] });
    expect(ids(selectCandidates(pools, policy({ admits: admittedBy(fp8, []) })))).toEqual([host.providerId]);
    const deny = preferences({ data_collection: "deny" });
    expect(ids(selectCandidates(pools, policy({ admits: admittedBy(deny, []) })))).toBe(
      "no_provider_preferred",
    );
    const declared = { ...cheapSlow, dataCollection: "deny" as const };
    expect(
      ids(
        selectCandidates(
          { market: [host], centralized: [declared] },
          policy({ admits: admittedBy(deny, []) }),
        ),
      ),
    ).toEqual(["openai"]);
    const strict = preferences({ require_parameters: true });
    const parameters = usedParameters({ model: "m", tools: [{}], seed: 1, temperature: 0 });
    expect(parameters).toEqual(["tools", "seed"]);
    expect(ids(selectCandidates(pools, policy({ admits: admittedBy(strict, parameters) })))).toEqual([
      "openai",
      "openrouter",
    ]);
    expect(ids(selectCandidates(pools, policy({ admits: admittedBy(strict, []) })))).toHaveLength(3);
  });

  it("order puts the named first; allow_fallbacks false keeps only them, or only the first", () => {
    const all = [host, cheapSlow, dearFast];
    expect(applyOrder(all, preferences({ order: ["openrouter"] })).map((x) => x.providerId)).toEqual([
      "openrouter",
      host.providerId,
      "openai",
    ]);
    expect(
      applyOrder(all, preferences({ order: ["openrouter"], allow_fallbacks: false })).map(
        (x) => x.providerId,
      ),
    ).toEqual(["openrouter"]);
    expect(applyOrder(all, preferences({ allow_fallbacks: false }))).toEqual([host]);
  });
});

describe("ordering by measured performance", () => {
  const model = "gpt-4o-mini";
  const measure = (
    performance: SourcePerformance,
    providerId: string,
    tokensPerSecond: number,
    ttftMs: number,
    ok = 1,
  ) => {
    for (let index = 0; index < 40; index += 1)
      performance.record(performanceKey(providerId, model), {
        ttftMs,
        outputTokens: tokensPerSecond,
        durationMs: ttftMs + 1_000,
        ok: index / 40 < ok,
        error: "upstream_error",
      });
  };
  const figuresOf = (performance: SourcePerformance) => (candidate: { providerId: string }) =>
    performance.figures(performanceKey(candidate.providerId, model));

  it("a host announcing 10x its real speed is ranked by the measured one", () => {
    const performance = new SourcePerformance();
    const boaster = {
      ...c("aaaaaaaa-0000-4000-8000-000000000001", "marketplace", 100, 100, "2026-01-01"),
      announcedTokensPerSecond: 500,
    };
    const honest = {
      ...c("bbbbbbbb-0000-4000-8000-000000000002", "marketplace", 100, 100, "2026-01-02"),
      announcedTokensPerSecond: 100,
    };
    const bySpeed = (candidates: (typeof boaster)[]) =>
      orderBySort(candidates, "throughput", figuresOf(performance)).map((x) => x.providerId);
    // Before any measurement the announced figures are all there is.
    expect(bySpeed([honest, boaster])).toEqual([boaster.providerId, honest.providerId]);
    measure(performance, boaster.providerId, 50, 200);
    measure(performance, honest.providerId, 100, 200);
    expect(bySpeed([boaster, honest])).toEqual([honest.providerId, boaster.providerId]);
    expect(orderByScore([boaster, honest], figuresOf(performance)).map((x) => x.providerId)).toEqual([
      honest.providerId,
      boaster.providerId,
    ]);
  });

  it("the default score keeps price order inside the noise bands, and pays for real differences", () => {
    const performance = new SourcePerformance();
    const cheap = c("openai", "centralized", 100, 100);
    const dear = c("openrouter", "centralized", 120, 120);
    measure(performance, "openai", 90, 300);
    measure(performance, "openrouter", 100, 200);
    expect(orderByScore([dear, cheap], figuresOf(performance)).map((x) => x.providerId)).toEqual([
      "openai",
      "openrouter",
    ]);
    // Four times slower: √4 = 2x its price, past the 1.2x the other costs.
    const slow = new SourcePerformance();
    measure(slow, "openai", 25, 300);
    measure(slow, "openrouter", 100, 200);
    expect(orderByScore([cheap, dear], figuresOf(slow)).map((x) => x.providerId)).toEqual([
      "openrouter",
      "openai",
    ]);
    // Failing half its requests: twice its price.
    const flaky = new SourcePerformance();
    measure(flaky, "openai", 100, 200, 0.5);
    measure(flaky, "openrouter", 100, 200);
    expect(orderByScore([cheap, dear], figuresOf(flaky)).map((x) => x.providerId)).toEqual([
      "openrouter",
      "openai",
    ]);
  });

  it("sort latency puts the quickest first token first, unmeasured last", () => {
    const performance = new SourcePerformance();
    measure(performance, "openrouter", 100, 100);
    measure(performance, "openai", 100, 900);
    const third = c("together", "centralized", 1, 1);
    expect(
      orderBySort([cheapSlow, third, dearFast], "latency", figuresOf(performance)).map((x) => x.providerId),
    ).toEqual(["openrouter", "openai", "together"]);
  });
});
