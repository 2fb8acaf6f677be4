import type { Candidate } from "../providers/candidate";
import { isWithinCeilings, type PriceCeilings } from "./price-ceilings";
import { type ProviderPin, pinKey } from "./provider-pins";
import { demoteUnhealthy, rankCandidates } from "./rank-candidates";
import type { RoutingMode } from "./routing-mode";

/**
 * Everything that could serve the model before the caller's constraints apply. `market`
 * holds marketplace and key-relay candidates that are already routable: within the
 * centralized cap, enabled, under their daily cap, and (marketplace) connected with a free
 * slot. `centralized` holds the configured centralized providers.
 */
export interface CandidatePools {
  market: Candidate[];
  centralized: Candidate[];
}

export interface RoutingPolicy {
  mode: RoutingMode;
  ceilings: PriceCeilings;
  pins: ProviderPin[] | undefined;
  isDemoted(providerId: string): boolean;
  /** Most marketplace/relay candidates tried for one request, so a thin tail of failing listings cannot stall it. */
  maxMarketAttempts: number;
  /** The caller's provider preferences (`provider.only`, `ignore`, guarantees): sources they refuse are never routed. */
  admits?(candidate: Candidate): boolean;
  /**
   * The order of a set of candidates (default: the price order). `across` orders the
   * marketplace and centralized tiers as one list (a caller's `provider.sort`).
   */
  arrange?: { order(candidates: readonly Candidate[]): Candidate[]; across: boolean };
  /** The last word on the try order (`provider.order`, `allow_fallbacks`). */
  finish?(candidates: Candidate[]): Candidate[];
}

export const defaultMaxMarketAttempts = 4;

export type Selection =
  /** The try order: failover walks it until a candidate answers. */
  | { type: "selected"; candidates: Candidate[] }
  /** Nobody can serve the model in this mode, at any price. */
  | { type: "no_provider" }
  /** Someone could serve, but not at or below the ceilings; the prices of the cheapest who could. */
  | {
      type: "no_provider_at_price";
      suggestedInputPer1m: bigint;
      suggestedOutputPer1m: bigint;
      /** Set when the cheapest who could serve sells per request. */
      suggestedRequestPrice?: bigint | undefined;
    }
  /** None of the pinned providers can serve the model. */
  | { type: "pin_unsatisfiable"; pins: string[] }
  /** Sources exist, but the caller's provider preferences refuse every one. */
  | { type: "no_provider_preferred" };

/** Nothing fits the ceilings: suggest the prices of the cheapest candidate, which setting both ceilings to would admit. */
function atPrice(candidates: Candidate[]): Selection | undefined {
  const cheapest = rankCandidates(candidates)[0];
  if (!cheapest) return undefined;
  return {
    type: "no_provider_at_price",
    suggestedInputPer1m: cheapest.price.inputPer1m,
    suggestedOutputPer1m: cheapest.price.outputPer1m,
    suggestedRequestPrice: cheapest.price.requestPrice,
  };
}

/**
 * A pin is a hard constraint: only pinned providers, in the pinned order (cheapest first
 * within one pin), never a silent fallback, and no health reordering since the caller chose
 * the order. Ceilings still apply to every pinned candidate.
 */
function selectPinned(pools: CandidatePools, policy: RoutingPolicy, pins: ProviderPin[]): Selection {
  const pool =
    policy.mode === "centralized-only" ? pools.centralized : [...pools.market, ...pools.centralized];
  const ordered: Candidate[] = [];
  for (const pin of pins) {
    ordered.push(...rankCandidates(pool.filter((candidate) => candidate.providerId === pinKey(pin))));
  }
  if (ordered.length === 0) return { type: "pin_unsatisfiable", pins: pins.map(pinKey) };
  const eligible = ordered.filter((candidate) => isWithinCeilings(candidate.price, policy.ceilings));
  if (eligible.length === 0) return atPrice(ordered) ?? { type: "pin_unsatisfiable", pins: pins.map(pinKey) };
  return { type: "selected", candidates: eligible };
}

/**
 * Applies the caller's mode, pins and ceilings to the pools and returns the try order:
 * in `auto` the marketplace and relay candidates cheapest first, then centralized ones
 * cheapest first; demoted providers move behind every healthy candidate.
 */
export function selectCandidates(pools: CandidatePools, policy: RoutingPolicy): Selection {
  const admitted = admittedPools(pools, policy);
  if (!admitted) return { type: "no_provider_preferred" };
  const selection = policy.pins
    ? selectPinned(admitted, policy, policy.pins)
    : selectUnpinned(admitted, policy);
  if (selection.type !== "selected" || !policy.finish) return selection;
  return { type: "selected", candidates: policy.finish(selection.candidates) };
}

/** The pools without the sources the caller's preferences refuse; undefined when they refuse every one. */
function admittedPools(pools: CandidatePools, policy: RoutingPolicy): CandidatePools | undefined {
  const admits = policy.admits;
  if (!admits) return pools;
  const admitted = { market: pools.market.filter(admits), centralized: pools.centralized.filter(admits) };
  const before = pools.market.length + pools.centralized.length;
  return before > 0 && admitted.market.length + admitted.centralized.length === 0 ? undefined : admitted;
}

function selectUnpinned(pools: CandidatePools, policy: RoutingPolicy): Selection {
  const market = policy.mode === "centralized-only" ? [] : pools.market;
  const centralized = policy.mode === "marketplace-only" ? [] : pools.centralized;
  const all = [...market, ...centralized];
  if (all.length === 0) return { type: "no_provider" };

  const order = policy.arrange?.order ?? rankCandidates;
  const within = (candidates: Candidate[]) =>
    candidates.filter((candidate) => isWithinCeilings(candidate.price, policy.ceilings));
  const tiers = policy.arrange?.across
    ? order(within(all))
    : [...order(within(market)), ...order(within(centralized))];
  const ordered = demoteUnhealthy(tiers, policy.isDemoted);
  if (ordered.length === 0) return atPrice(all) ?? { type: "no_provider" };

  let marketAttempts = 0;
  const limited = ordered.filter((candidate) => {
    if (candidate.route === "centralized") return true;
    marketAttempts += 1;
    return marketAttempts <= policy.maxMarketAttempts;
  });
  return { type: "selected", candidates: limited };
}
