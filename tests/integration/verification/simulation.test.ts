import { describe, expect, it } from "vitest";
import { simulateScenario } from "../../../bench/verification/simulate";

/**
 * The detector over the fake model, a few seeds each (bench/verification-sim.ts runs 100 and
 * writes bench/results.md): honest hosts are not excluded, each kind of cheater is.
 */
describe("verification simulation", () => {
  it("excludes no honest host, at temperature 0.7 or 0", () => {
    for (const temperature of [0.7, 0]) {
      const report = simulateScenario({ name: "honest", temperature, jobs: 600 }, 6, 500);
      expect(report.falseExclusions).toBe(0);
      expect(report.checkedPerRun).toBeGreaterThan(40);
    }
  });

  it("excludes a host that answers from a smaller model on 10% of real jobs, even when it spares whatever it takes for a canary by every feature it sees", () => {
    const report = simulateScenario(
      {
        name: "classifier",
        temperature: 0.7,
        cheat: { mode: "smaller", rate: 0.1 },
        classifiesCanaries: true,
        jobs: 1000,
      },
      8,
      500,
    );
    expect(report.excludedWithin).toBeGreaterThanOrEqual(7);
  });

  it("excludes garbage and truncated answers, and a host that behaved first", () => {
    const garbage = simulateScenario(
      { name: "garbage", temperature: 0.7, cheat: { mode: "garbage", rate: 0.5 }, jobs: 300 },
      5,
      300,
    );
    expect(garbage.excludedWithin).toBe(5);
    const truncated = simulateScenario(
      { name: "truncated", temperature: 0.7, cheat: { mode: "truncated", rate: 0.5 }, jobs: 600 },
      5,
      600,
    );
    expect(truncated.excluded).toBe(5);
    const patient = simulateScenario(
      { name: "patient", temperature: 0.7, cheat: { mode: "smaller", rate: 0.5, after: 400 }, jobs: 800 },
      5,
      400,
    );
    expect(patient.falseExclusions).toBe(0);
    expect(patient.excludedWithin).toBe(5);
  });
});
