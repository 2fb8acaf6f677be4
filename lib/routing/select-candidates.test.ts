import { describe, expect, it } from "vitest";
import type { PriceCeilings } from "./price-ceilings";
import type { ProviderPin } from "./provider-pins";
import type { RoutingMode } from "./routing-mode";
import { type CandidatePools, type Selection, selectCandidates } from "./select-candidates";
import { testCandidate as c } from "./test-candidates";

const relayA = c("aaaaaaaa-0000-4000-8000-000000000001", "key-relay", 100, 300, "2026-01-01");
const relayB = c("bbbbbbbb-0000-4000-8000-000000000002", "key-relay", 120, 250, "2026-01-02");
const agent = c("cccccccc-0000-4000-8000-000000000003", "marketplace", 50, 500, "2026-01-03");
const openai = c("openai", "centralized", 150, 600);
const openrouter = c("openrouter", "centralized", 150, 600);

const pools: CandidatePools = { market: [relayA, relayB, agent], centralized: [openai, openrouter] };
const none = () => false;
const id = (pin: string): ProviderPin =>
  /^[0-9a-f]{8}-/.test(pin) ? { kind: "provider-id", id: pin } : { kind: "centralized", name: pin };

interface Case {
  name: string;
  mode?: RoutingMode;
  ceilings?: PriceCeilings;
  pins?: string[];
  demoted?: string[];
  pools?: CandidatePools;
  maxMarketAttempts?: number;
  expected: string[] | Exclude<Selection, { type: "selected" }>;
}

const cases: Case[] = [
  // Order: price (input + output), ties to lower input, then earliest enrolment; centralized after market in auto.
  {
    name: "auto: market cheapest first, then centralized",
    expected: [relayB.providerId, relayA.providerId, agent.providerId, "openai", "openrouter"],
  },
  {
    name: "marketplace-only never lists centralized",
    mode: "marketplace-only",
    expected: [relayB.providerId, relayA.providerId, agent.providerId],
  },
  { name: "centralized-only skips the market", mode: "centralized-only", expected: ["openai", "openrouter"] },
  {
    name: "equal totals: the lower input price wins",
    pools: {
      market: [
        c("x1000000-0000-4000-8000-000000000000", "key-relay", 200, 100, "2026-01-01"),
        c("x2000000-0000-4000-8000-000000000000", "key-relay", 100, 200, "2026-01-05"),
      ],
      centralized: [],
    },
    expected: ["x2000000-0000-4000-8000-000000000000", "x1000000-0000-4000-8000-000000000000"],
  },
  {
    name: "equal prices: the earliest enrolment wins",
    pools: {
      market: [
        c("y2000000-0000-4000-8000-000000000000", "key-relay", 100, 100, "2026-02-01"),
        c("y1000000-0000-4000-8000-000000000000", "marketplace", 100, 100, "2026-01-01"),
      ],
      centralized: [],
    },
    expected: ["y1000000-0000-4000-8000-000000000000", "y2000000-0000-4000-8000-000000000000"],
  },
  // Ceilings: both axes must be at or below.
  {
    name: "input ceiling drops dearer inputs",
    ceilings: { inputPer1m: 100n },
    expected: [relayA.providerId, agent.providerId],
  },
  {
    name: "output ceiling drops dearer outputs",
    ceilings: { outputPer1m: 300n },
    expected: [relayB.providerId, relayA.providerId],
  },
  {
    name: "ceilings are inclusive, on both axes",
    ceilings: { inputPer1m: 120n, outputPer1m: 300n },
    expected: [relayB.providerId, relayA.providerId],
  },
  {
    name: "auto: too-expensive market falls through to centralized",
    ceilings: { inputPer1m: 150n, outputPer1m: 600n },
    pools: {
      market: [c("z0000000-0000-4000-8000-000000000000", "key-relay", 160, 100, "2026-01-01")],
      centralized: [openai],
    },
    expected: ["openai"],
  },
  {
    name: "nothing under the ceilings: 402 with the cheapest candidate's prices",
    ceilings: { inputPer1m: 10n, outputPer1m: 10n },
    expected: { type: "no_provider_at_price", suggestedInputPer1m: 120n, suggestedOutputPer1m: 250n },
  },
  {
    name: "marketplace-only under the ceilings: 402, never centralized",
    mode: "marketplace-only",
    ceilings: { outputPer1m: 200n },
    expected: { type: "no_provider_at_price", suggestedInputPer1m: 120n, suggestedOutputPer1m: 250n },
  },
  {
    name: "marketplace-only with no market at all: no_provider",
    mode: "marketplace-only",
    pools: { market: [], centralized: [openai] },
    expected: { type: "no_provider" },
  },
  {
    name: "no source at all: no_provider",
    pools: { market: [], centralized: [] },
    expected: { type: "no_provider" },
  },
  // Health: demoted providers go behind every healthy candidate, never out.
  {
    name: "a demoted relay moves behind healthy ones",
    demoted: [relayB.providerId],
    expected: [relayA.providerId, agent.providerId, "openai", "openrouter", relayB.providerId],
  },
  {
    name: "a demoted provider still serves when it is the only one",
    demoted: ["openai"],
    mode: "centralized-only",
    pools: { market: [], centralized: [openai] },
    expected: ["openai"],
  },
  {
    name: "market attempts are bounded; centralized always stays",
    maxMarketAttempts: 2,
    expected: [relayB.providerId, relayA.providerId, "openai", "openrouter"],
  },
  // Pins: a hard constraint, order is the try order, composes with ceilings.
  { name: "pin order is the try order", pins: ["openrouter", "openai"], expected: ["openrouter", "openai"] },
  {
    name: "pins mix names and provider ids",
    pins: [agent.providerId, "openai"],
    expected: [agent.providerId, "openai"],
  },
  {
    name: "pins are not reordered by health",
    pins: ["openai", "openrouter"],
    demoted: ["openai"],
    expected: ["openai", "openrouter"],
  },
  {
    name: "a pin nobody can serve: 503 naming it",
    pins: ["venice"],
    expected: { type: "pin_unsatisfiable", pins: ["venice"] },
  },
  {
    name: "centralized-only pins see only centralized",
    mode: "centralized-only",
    pins: ["openrouter"],
    expected: ["openrouter"],
  },
  {
    name: "pins with ceilings drop dearer pinned providers",
    pins: [agent.providerId, relayA.providerId],
    ceilings: { outputPer1m: 400n },
    expected: [relayA.providerId],
  },
  {
    name: "pinned providers all above the ceilings: 402",
    pins: ["openai"],
    ceilings: { inputPer1m: 100n },
    expected: { type: "no_provider_at_price", suggestedInputPer1m: 150n, suggestedOutputPer1m: 600n },
  },
];

describe("selectCandidates", () => {
  it.each(cases)("$name", (testCase) => {
    const selection = selectCandidates(testCase.pools ?? pools, {
      mode: testCase.mode ?? "auto",
      ceilings: testCase.ceilings ?? {},
      pins: testCase.pins?.map(id),
      isDemoted: testCase.demoted ? (providerId) => testCase.demoted?.includes(providerId) ?? false : none,
      maxMarketAttempts: testCase.maxMarketAttempts ?? 10,
    });
    if (Array.isArray(testCase.expected)) {
      expect(selection.type).toBe("selected");
      if (selection.type === "selected")
        expect(selection.candidates.map((item) => item.providerId)).toEqual(testCase.expected);
    } else {
      expect(selection).toEqual(testCase.expected);
    }
  });
});
