import type { CallerDialect, Dialect } from "../dialects/dialect";
import { translateRequest } from "../dialects/translate";
import type { TargetModel } from "../dialects/translate/target-model";
import { GatewayError } from "../errors/gateway-error";
import type { Candidate } from "../providers/candidate";

/**
 * Drops candidates whose dialect the caller's body cannot be translated into (a feature the
 * other format lacks), so failover never lands on a source that would need a lossy request.
 * When no candidate is left, the translation error (a 400 naming the feature) is the answer.
 */
export function translatableCandidates(
  callerDialect: CallerDialect,
  body: Record<string, unknown>,
  candidates: Candidate[],
  target: TargetModel,
): Candidate[] {
  const blocked = new Set<Dialect>();
  let firstError: GatewayError | undefined;
  for (const dialect of new Set(candidates.map((candidate) => candidate.dialect))) {
    if (dialect === callerDialect) continue;
    try {
      translateRequest(callerDialect, dialect, body, "probe", target);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      blocked.add(dialect);
      firstError ??= error;
    }
  }
  const kept = candidates.filter((candidate) => !blocked.has(candidate.dialect));
  if (kept.length === 0 && firstError) throw firstError;
  return kept;
}
