import type { Candidate } from "../providers/candidate";

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The matching order: cheaper total (input + output per 1M, or the price per request) first, ties to the lower
 * input price, then to the provider that enrolled earliest. Candidates without an
 * enrolment date (centralized) sort after enrolled ones on a full tie.
 */
function compareCandidates(a: Candidate, b: Candidate): number {
  const total = compareBigint(
    a.price.inputPer1m + a.price.outputPer1m + (a.price.requestPrice ?? 0n),
    b.price.inputPer1m + b.price.outputPer1m + (b.price.requestPrice ?? 0n),
  );
  if (total !== 0) return total;
  const input = compareBigint(a.price.inputPer1m, b.price.inputPer1m);
  if (input !== 0) return input;
  const aTime = a.enrolledAt?.getTime() ?? Number.POSITIVE_INFINITY;
  const bTime = b.enrolledAt?.getTime() ?? Number.POSITIVE_INFINITY;
  return aTime === bTime ? 0 : aTime < bTime ? -1 : 1;
}

export function rankCandidates(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort(compareCandidates);
}

/** Stable: healthy candidates keep their order, demoted ones follow in theirs. */
export function demoteUnhealthy(
  candidates: readonly Candidate[],
  isDemoted: (providerId: string) => boolean,
): Candidate[] {
  const healthy: Candidate[] = [];
  const demoted: Candidate[] = [];
  for (const candidate of candidates) (isDemoted(candidate.providerId) ? demoted : healthy).push(candidate);
  return [...healthy, ...demoted];
}
