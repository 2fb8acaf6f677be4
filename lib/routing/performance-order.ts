import type { Candidate } from "../providers/candidate";
import type { SortKey } from "./provider-preferences";
import { rankCandidates } from "./rank-candidates";
import type { SourceFigures } from "./source-performance";

/** What ordering knows of a candidate's speed: measured figures, else what its host announced. */
interface Speed {
  tokensPerSecond: number | undefined;
  ttftMs: number | undefined;
  successRate: number | undefined;
}

/** Below this measured success rate a source is not trusted further (its score stops growing). */
const minReliability = 0.05;
/** Each this much time to first token behind the fastest adds the candidate's own price once more. */
const latencyPriceMs = 5_000;
/**
 * Differences inside these bands are noise, not a reason to reorder sources of one price: a
 * success rate of 95% or more, a speed within 80% of the fastest, a first token within 250 ms.
 */
const reliableAbove = 0.95;
const asFastAbove = 0.8;
const asQuickWithinMs = 250;

function speedOf(candidate: Candidate, figures: SourceFigures): Speed {
  if (figures.measured)
    return {
      tokensPerSecond: figures.tokensPerSecond,
      ttftMs: figures.ttftMs,
      successRate: figures.successRate,
    };
  // A host's announced figure counts only until the gateway has measured it: then the real one wins.
  return { tokensPerSecond: candidate.announcedTokensPerSecond, ttftMs: undefined, successRate: undefined };
}

const compareDefined = (a: number | undefined, b: number | undefined, lowerFirst: boolean) => {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  return lowerFirst ? a - b : b - a;
};

/**
 * The default order within a tier (content/docs/routing/provider-preferences.mdx):
 *
 *   score = (price + 1) / reliability × √(bestTps / tps) × (1 + (ttft − bestTtft) / 5 s)
 *
 * lower first; price is input + output per 1M tokens in microunits, reliability the measured
 * success rate (at least 0.05), tps and ttft the measured (or, for tps, announced) figures and
 * best* the best of the candidates compared. An unknown figure counts as neutral (factor 1), so
 * with nothing measured this is the price order, and so does a figure inside its noise band
 * (success ≥ 95%, tps ≥ 80% of the best, ttft within 250 ms of the best). Ties keep the price order.
 */
export function orderByScore(
  candidates: readonly Candidate[],
  figuresOf: (candidate: Candidate) => SourceFigures,
): Candidate[] {
  const ranked = rankCandidates(candidates);
  if (ranked.length < 2) return ranked;
  const speeds = new Map(ranked.map((candidate) => [candidate, speedOf(candidate, figuresOf(candidate))]));
  const known = [...speeds.values()];
  // Nothing measured or announced (the usual case for a source seen rarely): the price order.
  if (
    known.every(
      (speed) =>
        speed.tokensPerSecond === undefined && speed.ttftMs === undefined && speed.successRate === undefined,
    )
  )
    return ranked;
  const bestTps = Math.max(0, ...known.map((speed) => speed.tokensPerSecond ?? 0));
  const ttfts = known.flatMap((speed) => (speed.ttftMs === undefined ? [] : [speed.ttftMs]));
  const bestTtft = ttfts.length > 0 ? Math.min(...ttfts) : 0;
  const score = (candidate: Candidate) => {
    const speed = speeds.get(candidate) as Speed;
    const price =
      Number(
        candidate.price.inputPer1m + candidate.price.outputPer1m + (candidate.price.requestPrice ?? 0n),
      ) + 1;
    const success = speed.successRate ?? 1;
    const reliability = success >= reliableAbove ? 1 : Math.max(success, minReliability);
    const tps = speed.tokensPerSecond;
    const slowness =
      tps !== undefined && tps > 0 && tps < bestTps * asFastAbove ? Math.sqrt(bestTps / tps) : 1;
    const behindMs = speed.ttftMs === undefined ? 0 : speed.ttftMs - bestTtft;
    const latency = behindMs < asQuickWithinMs ? 1 : 1 + behindMs / latencyPriceMs;
    return (price / reliability) * slowness * latency;
  };
  const scores = new Map(ranked.map((candidate) => [candidate, score(candidate)]));
  return ranked.sort((a, b) => (scores.get(a) as number) - (scores.get(b) as number));
}

/**
 * `provider.sort`: one figure decides, the price order breaks ties, and a candidate whose figure
 * is unknown goes after every one whose figure is known. `throughput` reads measured tokens
 * per second (announced until measured), `latency` measured time to first token.
 */
export function orderBySort(
  candidates: readonly Candidate[],
  sort: SortKey,
  figuresOf: (candidate: Candidate) => SourceFigures,
): Candidate[] {
  const ranked = rankCandidates(candidates);
  if (sort === "price") return ranked;
  const speeds = new Map(ranked.map((candidate) => [candidate, speedOf(candidate, figuresOf(candidate))]));
  const figure = (candidate: Candidate) => {
    const speed = speeds.get(candidate) as Speed;
    return sort === "throughput" ? speed.tokensPerSecond : speed.ttftMs;
  };
  return ranked.sort((a, b) => compareDefined(figure(a), figure(b), sort === "latency"));
}
