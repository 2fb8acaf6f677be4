import { describe, expect, it } from "vitest";
import { seededRandom } from "../../tests/helpers/seeded-random";
import { HealthTracker } from "./health-tracker";

type Step = ["ok", number] | ["fail"] | ["wait", number];

function tracker(steps: Step[]) {
  let now = 1_000_000;
  const health = new HealthTracker({}, () => now);
  for (const step of steps) {
    if (step[0] === "ok") health.recordSuccess("p", step[1]);
    else if (step[0] === "fail") health.recordFailure("p", 5);
    else now += step[1];
  }
  return health;
}

const ok = (ms = 200): Step => ["ok", ms];
const fail: Step = ["fail"];

describe("HealthTracker (defaults: ≥4 attempts and ≥50% failures, or mean time to headers ≥10 s over ≥3 successes)", () => {
  it.each<[string, Step[], boolean]>([
    ["no history is healthy", [], false],
    ["three failures are too few to judge", [fail, fail, fail], false],
    ["four failures out of four demote", [fail, fail, fail, fail], true],
    ["half failed demotes", [ok(), fail, ok(), fail], true],
    ["one in four failed is healthy", [ok(), ok(), ok(), fail], false],
    ["slow headers demote", [ok(12_000), ok(11_000), ok(9_000)], true],
    ["two slow samples are too few", [ok(30_000), ok(30_000)], false],
    ["fast headers are healthy", [ok(300), ok(400), ok(500)], false],
    ["failures age out after ten minutes", [fail, fail, fail, fail, ["wait", 10 * 60_000 + 1]], false],
    [
      "recent successes dilute old failures in the window",
      [fail, fail, fail, fail, ...Array.from({ length: 20 }, () => ok())],
      false,
    ],
  ])("%s", (_name, steps, demoted) => {
    expect(tracker(steps).isDemoted("p")).toBe(demoted);
  });

  it("keeps providers apart", () => {
    const health = new HealthTracker();
    for (let index = 0; index < 4; index += 1) health.recordFailure("bad", 1);
    expect(health.isDemoted("bad")).toBe(true);
    expect(health.isDemoted("good")).toBe(false);
  });

  it("isDemoted (one pass, nothing allocated) agrees with health() over seeded histories at every step", () => {
    for (let seed = 1; seed <= 50; seed += 1) {
      const random = seededRandom(seed);
      let now = 1_000_000;
      const health = new HealthTracker({}, () => now);
      for (let step = 0; step < 200; step += 1) {
        const roll = random();
        if (roll < 0.45) health.recordSuccess("p", Math.floor(random() * 20_000));
        else if (roll < 0.85) health.recordFailure("p", 5);
        else now += Math.floor(random() * 4 * 60_000);
        expect(health.isDemoted("p"), `seed ${seed}, step ${step}`).toBe(health.health("p").demoted);
      }
    }
  });
});
