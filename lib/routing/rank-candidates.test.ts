import { describe, expect, it } from "vitest";
import { demoteUnhealthy, rankCandidates } from "./rank-candidates";
import { testCandidate as c } from "./test-candidates";

describe("rankCandidates", () => {
  it.each([
    ["cheaper total first", [c("b", "key-relay", 100, 200), c("a", "key-relay", 100, 100)], ["a", "b"]],
    [
      "equal total: lower input first",
      [c("b", "key-relay", 150, 50), c("a", "key-relay", 50, 150)],
      ["a", "b"],
    ],
    [
      "full tie: earliest enrolment first",
      [c("b", "marketplace", 1, 1, "2026-03-01"), c("a", "key-relay", 1, 1, "2026-02-01")],
      ["a", "b"],
    ],
    [
      "full tie: enrolled before centralized",
      [c("openai", "centralized", 1, 1), c("a", "key-relay", 1, 1, "2026-02-01")],
      ["a", "openai"],
    ],
    [
      "centralized ties keep catalog order",
      [c("openai", "centralized", 1, 1), c("openrouter", "centralized", 1, 1)],
      ["openai", "openrouter"],
    ],
  ])("%s", (_name, candidates, expected) => {
    expect(rankCandidates(candidates).map((item) => item.providerId)).toEqual(expected);
  });

  it("demotion is stable on both sides", () => {
    const ordered = [
      c("a", "key-relay", 1, 1),
      c("b", "key-relay", 2, 2),
      c("c", "key-relay", 3, 3),
      c("d", "key-relay", 4, 4),
    ];
    expect(demoteUnhealthy(ordered, (id) => id === "a" || id === "c").map((item) => item.providerId)).toEqual(
      ["b", "d", "a", "c"],
    );
  });
});
