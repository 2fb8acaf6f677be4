import type { CatalogModel } from "../catalog/models";
import { log } from "../log";
import type { Candidate } from "../providers/candidate";
import type { ServedJob } from "../proxy/reserved-request";
import type { TrustServices } from "../trust/trust-services";
import { type CanaryServices, recordJobShape, scheduleCanary } from "./run-canary";
import { referenceAmong, scoreServedAnswer, todaySpent } from "./score-answer";

/**
 * Verification of real marketplace answers (issue 31): after the caller was served and billed, a
 * share (VERIFY_SHARE) of marketplace jobs, in either format, has the host's answer checked by a
 * trusted reference for the same model (./score-answer.ts), the evidence feeds the (host, model)
 * detector (lib/verification/cheat-detector.ts), and every check is on the host's record with its
 * evidence. A host the detector finds cheating is excluded and, as proven substitution, slashed.
 *
 * The data rule: the reference is a centralized source among the request's own candidates, the
 * sources the caller's routing allowed for this request; a job with none is not checked.
 */

/**
 * After a served marketplace job, with probability VERIFY_SHARE and within the day's budget, its
 * answer is checked against a reference among the request's own candidates. Never awaited by the
 * request: it runs after the caller was answered and billed.
 */
function scheduleAnswerCheck(
  app: TrustServices,
  model: CatalogModel,
  candidates: readonly Candidate[],
  host: Candidate,
  job: ServedJob | undefined,
): void {
  if (!job || host.route !== "marketplace" || job.outcome !== "completed") return;
  if (app.env.VERIFY_SHARE <= 0 || Math.random() >= app.env.VERIFY_SHARE) return;
  if (todaySpent() >= app.env.VERIFY_DAILY_BUDGET_MICROUNITS) return;
  const reference = referenceAmong(candidates);
  if (!reference) return;
  scoreServedAnswer(app, model, host, reference, job, { kind: "real" }).catch((error: unknown) =>
    log.error("answer check failed to run", { provider: host.providerId, error }),
  );
}

/**
 * What follows a served request (its `onServed`): a canary for the host at CANARY_SHARE, and a
 * check of the answer itself at VERIFY_SHARE. Real traffic of either kind (a token's, x402) gets
 * both, so a host cannot cheat one kind of caller only.
 */
export function followServedJob(
  app: CanaryServices & TrustServices,
  model: CatalogModel,
  candidates: readonly Candidate[],
): (candidate: Candidate, job: ServedJob) => void {
  return (candidate, job) => {
    recordJobShape(candidate, model, job);
    scheduleCanary(app, candidate, model);
    scheduleAnswerCheck(app, model, candidates, candidate, job);
  };
}
