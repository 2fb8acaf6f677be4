import { describe, expect, it } from "vitest";
import { performanceKey, SourcePerformance, type TimedSample } from "./source-performance";

const key = performanceKey("openai", "gpt-4o-mini");

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("measured performance per (source, model)", () => {
  it("reads time to first token, generation speed and success rate from the samples", () => {
    const time = clock();
    const performance = new SourcePerformance({ minWeight: 3 }, time.now);
    // 100 tokens in 1 s after a 200 ms first token: 100 tokens per second.
    for (let index = 0; index < 3; index += 1)
      performance.record(key, { ttftMs: 200, outputTokens: 100, durationMs: 1_200, ok: true });
    performance.record(key, { outputTokens: 0, durationMs: 50, ok: false, error: "upstream_error" });
    const figures = performance.figures(key);
    expect(figures.ttftMs).toBeCloseTo(200);
    expect(figures.tokensPerSecond).toBeCloseTo(100);
    expect(figures.successRate).toBeCloseTo(0.75);
    expect(figures.requests).toBe(4);
    expect(figures.measured).toBe(true);
    expect(figures.recentErrors).toEqual([{ at: time.now(), error: "upstream_error" }]);
  });

  it("forgets with age: after a slowdown the figures follow the new speed", () => {
    const time = clock();
    const performance = new SourcePerformance({ halfLifeMs: 60_000, minWeight: 5 }, time.now);
    for (let index = 0; index < 50; index += 1)
      performance.record(key, { ttftMs: 100, outputTokens: 200, durationMs: 1_100, ok: true });
    time.advance(10 * 60_000);
    expect(performance.figures(key).measured).toBe(false);
    for (let index = 0; index < 10; index += 1)
      performance.record(key, { ttftMs: 100, outputTokens: 20, durationMs: 1_100, ok: true });
    // Ten half-lives old, the fast samples weigh ~1/1000 of a fresh one each.
    expect(performance.figures(key).tokensPerSecond).toBeLessThan(25);
    expect(performance.figures(key).measured).toBe(true);
  });

  it("holds the same figures whatever order replicas hear the samples in", () => {
    const time = clock();
    const samples: TimedSample[] = Array.from({ length: 40 }, (_, index) => ({
      at: 1_000_000 + index * 7_919,
      ttftMs: 50 + ((index * 37) % 400),
      outputTokens: 10 + ((index * 53) % 300),
      durationMs: 2_000 + ((index * 71) % 900),
      ok: index % 9 !== 0,
      error: "upstream_timeout",
    }));
    time.advance(400_000);
    const inOrder = new SourcePerformance({}, time.now);
    const shuffled = new SourcePerformance({}, time.now);
    for (const sample of samples) inOrder.recordShared(key, sample);
    for (const sample of [...samples].reverse()) shuffled.recordShared(key, sample);
    const a = inOrder.figures(key);
    const b = shuffled.figures(key);
    expect(b.weight).toBeCloseTo(a.weight, 9);
    expect(b.ttftMs).toBeCloseTo(a.ttftMs ?? Number.NaN, 9);
    expect(b.tokensPerSecond).toBeCloseTo(a.tokensPerSecond ?? Number.NaN, 9);
    expect(b.successRate).toBeCloseTo(a.successRate ?? Number.NaN, 9);
    expect(b.recentErrors).toEqual(a.recentErrors);
  });

  it("bounds what it is told: absurd numbers are clamped, and the longest idle source is forgotten past the cap", () => {
    const time = clock();
    const performance = new SourcePerformance({ maxSources: 2, minWeight: 1 }, time.now);
    performance.record("a", {
      ttftMs: -5,
      outputTokens: Number.POSITIVE_INFINITY,
      durationMs: Number.NaN,
      ok: true,
    });
    expect(performance.figures("a").ttftMs).toBe(0);
    expect(performance.figures("a").tokensPerSecond).toBeUndefined();
    performance.record("b", { ttftMs: 10, outputTokens: 10, durationMs: 20, ok: true });
    performance.record("a", { ttftMs: 10, outputTokens: 10, durationMs: 20, ok: true });
    performance.record("c", { ttftMs: 10, outputTokens: 10, durationMs: 20, ok: true });
    expect(performance.figures("b").requests).toBe(0);
    expect(performance.figures("a").requests).toBe(2);
    expect(performance.figures("c").requests).toBe(1);
  });

  it("hands its own samples to the other replicas, never the ones it heard", () => {
    const performance = new SourcePerformance();
    const published: string[] = [];
    performance.share((published_key) => published.push(published_key));
    performance.record("own", { outputTokens: 5, durationMs: 10, ok: true });
    performance.recordShared("theirs", { at: Date.now(), outputTokens: 5, durationMs: 10, ok: true });
    expect(published).toEqual(["own"]);
  });
});
