import { describe, expect, it } from "vitest";
import { seededRandom as seeded } from "../../tests/helpers/seeded-random";
import { type DetectorState, detectorThreshold, newDetector, observeAnswer } from "./cheat-detector";

/** log of an e-value with expectation exactly 1: lognormal with mean 1. */
function honestLogE(random: () => number, sigma: number): number {
  const normal = Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
  return sigma * normal - (sigma * sigma) / 2;
}

/** Answers until the detector finds cheating; undefined when it never does within `limit`. */
function answersToAlarm(
  state: DetectorState,
  next: (index: number) => number,
  limit: number,
): number | undefined {
  let current = state;
  for (let index = 0; index < limit; index += 1) {
    const step = observeAnswer(current, next(index));
    if (step.cheating) return index + 1;
    current = step.state;
  }
  return undefined;
}

describe("cheat detector", () => {
  it("does not find an honest host cheating over long runs of fair e-values, however noisy", () => {
    let alarms = 0;
    for (let seed = 1; seed <= 40; seed += 1) {
      const random = seeded(seed);
      const sigma = 0.5 + (seed % 4);
      if (answersToAlarm(newDetector(), () => honestLogE(random, sigma), 5000) !== undefined) alarms += 1;
    }
    expect(alarms).toBe(0);
  });

  it("finds a host whose answers carry strong evidence on a share of its jobs", () => {
    for (let seed = 1; seed <= 20; seed += 1) {
      const random = seeded(seed);
      const found = answersToAlarm(newDetector(), () => (random() < 0.1 ? 12 : honestLogE(random, 1)), 5000);
      expect(found).toBeDefined();
      expect(found).toBeLessThan(400);
    }
  });

  // A host that behaves for a long while banks nothing: the statistic restarts from 0.
  it("finds a host that behaved first as fast as a new one", () => {
    const cheating = (random: () => number) => () => (random() < 0.1 ? 12 : honestLogE(random, 1));
    let state = newDetector();
    const random = seeded(99);
    for (let index = 0; index < 20_000; index += 1) state = observeAnswer(state, honestLogE(random, 1)).state;
    expect(Math.max(...state.statistics)).toBeLessThan(detectorThreshold() / 2);
    const after = answersToAlarm(state, cheating(seeded(7)), 5000);
    const fresh = answersToAlarm(newDetector(), cheating(seeded(7)), 5000);
    expect(after).toBeDefined();
    expect(Math.abs((after ?? 0) - (fresh ?? 0))).toBeLessThan(30);
  });
});
