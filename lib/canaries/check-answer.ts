import { and, desc, eq, sql } from "drizzle-orm";
import type { CatalogModel } from "../catalog/models";
import { hostTrustEvents } from "../db/schema";
import { ensureAccount } from "../ledger/accounts";
import { postTransaction } from "../ledger/post-transaction";
import { log } from "../log";
import { costOfUsage, emptyUsage } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";
import type { ServedJob } from "../proxy/reserved-request";
import { noteTrustEvents } from "../trust/note-trust-events";
import type { TrustServices } from "../trust/trust-services";
import { answerEvidence } from "../verification/answer-evidence";
import {
  type DetectorSettings,
  type DetectorState,
  defaultDetectorSettings,
  detectorThreshold,
  newDetector,
  observeAnswer,
} from "../verification/cheat-detector";
import { parseScoring, scoringRequest } from "../verification/reference-scoring";
import { type CanaryServices, scheduleCanary } from "./run-canary";

/**
 * Verification of real marketplace answers (issue 31): after the caller was served and billed, a
 * share (VERIFY_SHARE) of marketplace jobs has the host's answer scored by a trusted reference for
 * the same model (lib/verification/reference-scoring.ts), the score feeds the (host, model)
 * detector (lib/verification/cheat-detector.ts), and every check is on the host's record with its
 * evidence. A host the detector finds cheating is excluded and, as proven substitution, slashed.
 *
 * The data rule: the reference is a centralized source among the request's own candidates, the
 * sources the caller's routing allowed for this request; a job with none is not checked.
 */

/** What scoring costs is booked from this external budget to a per-host account. */
const verificationBudget = { kind: "external", ref: "verification-budget" } as const;
const scoringTimeoutMs = 30_000;

/** Sampling settings a teacher-forced score cannot account for: such jobs are not checked. */
const unscorableFields = [
  "logit_bias",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "tools",
];

/** Scoring spent by this process today, against VERIFY_DAILY_BUDGET_MICROUNITS. */
const spent = { day: "", microunits: 0n };

function todaySpent(): bigint {
  const day = new Date().toISOString().slice(0, 10);
  if (spent.day !== day) {
    spent.day = day;
    spent.microunits = 0n;
  }
  return spent.microunits;
}

function detectorSettings(app: TrustServices): DetectorSettings {
  return {
    ...defaultDetectorSettings,
    falseAlarm: app.env.VERIFY_FALSE_ALARM,
    horizon: app.env.VERIFY_HORIZON,
  };
}

/** The job's temperature, when its answer can be scored: a number from 0 to 1, no penalties, one choice. */
function scorableTemperature(forwarded: Record<string, unknown>): number | undefined {
  if (unscorableFields.some((field) => forwarded[field] !== undefined && forwarded[field] !== 0))
    return undefined;
  if (forwarded.n !== undefined && forwarded.n !== 1) return undefined;
  const temperature = forwarded.temperature ?? 1;
  return typeof temperature === "number" && temperature >= 0 && temperature <= 1 ? temperature : undefined;
}

async function lastState(
  app: TrustServices,
  hostId: string,
  model: string,
): Promise<DetectorState | undefined> {
  const [row] = await app.database.db
    .select({ evidence: hostTrustEvents.evidence })
    .from(hostTrustEvents)
    .where(
      and(
        eq(hostTrustEvents.hostId, hostId),
        eq(hostTrustEvents.kind, "answer_checked"),
        sql`${hostTrustEvents.evidence}->>'model' = ${model}`,
      ),
    )
    .orderBy(desc(hostTrustEvents.id))
    .limit(1);
  const state = row?.evidence.detector as DetectorState | undefined;
  return state && Array.isArray(state.statistics) ? state : undefined;
}

async function bookScoring(
  app: TrustServices,
  hostId: string,
  requestId: string,
  cost: bigint,
): Promise<void> {
  if (cost <= 0n) return;
  spent.microunits += cost;
  const database = app.database.db;
  const budget = await ensureAccount(database, verificationBudget.kind, verificationBudget.ref);
  const perHost = await ensureAccount(database, "suspense", `verification:${hostId}`);
  await database.transaction((tx) =>
    postTransaction(tx, {
      kind: "verification_check",
      idempotencyKey: `verification:${requestId}`,
      metadata: { host_id: hostId, request_id: requestId, note: "reference scoring of a real answer" },
      entries: [
        { accountId: budget, amount: -cost },
        { accountId: perHost, amount: cost },
      ],
    }),
  );
}

/** Scores one served answer and files the check; undefined when it could not be scored. */
async function checkAnswer(
  app: TrustServices,
  model: CatalogModel,
  host: Candidate,
  reference: Candidate,
  job: ServedJob,
): Promise<void> {
  const forwarded = JSON.parse(job.forwardedBody) as Record<string, unknown>;
  const temperature = scorableTemperature(forwarded);
  const answer = job.answer();
  if (temperature === undefined || answer.trim() === "") return;
  const maxTokens = Number(
    forwarded.max_tokens ?? forwarded.max_completion_tokens ?? Number.POSITIVE_INFINITY,
  );
  const body = scoringRequest({ ...forwarded, model: reference.upstreamModelId }, answer);
  const response = await reference.dispatch(JSON.stringify(body), {
    signal: AbortSignal.timeout(scoringTimeoutMs),
    forwardHeaders: {},
  });
  const text = await response.text();
  if (!response.ok) {
    log.info("reference could not score an answer", {
      provider: reference.providerId,
      status: response.status,
    });
    return;
  }
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(text);
  } catch {
    return;
  }
  const scored = parseScoring(parsedBody, answer, job.outputTokens < maxTokens);
  if (!scored) {
    log.info("reference answered no teacher-forced log-probabilities", { provider: reference.providerId });
    return;
  }
  await bookScoring(
    app,
    host.providerId,
    job.requestId,
    costOfUsage({ ...emptyUsage, inputTokens: scored.promptTokens, outputTokens: 1 }, reference.price),
  );
  const evidence = answerEvidence(scored.positions, temperature);
  if (!evidence) return;
  const settings = detectorSettings(app);
  const step = observeAnswer(
    (await lastState(app, host.providerId, model.id)) ?? newDetector(settings),
    evidence.logE,
    settings,
  );
  const check = {
    model: model.id,
    request_id: job.requestId,
    reference: reference.providerId,
    temperature,
    positions: evidence.positions,
    mean_logprob: Number(evidence.meanLogprob.toFixed(4)),
    expected_logprob: Number(evidence.expectedLogprob.toFixed(4)),
    log_e: Number(evidence.logE.toFixed(4)),
    statistic: Number(step.statistic.toFixed(4)),
    threshold: Number(detectorThreshold(settings).toFixed(4)),
    detector: step.state,
  };
  const events: Parameters<typeof noteTrustEvents>[2][number][] = [
    {
      kind: "answer_checked",
      detail: `answer scored ${evidence.meanLogprob.toFixed(2)} nats a token under the reference where the model's own samples at temperature ${temperature} score ${evidence.expectedLogprob.toFixed(2)} (evidence ${evidence.logE.toFixed(1)}, running ${step.statistic.toFixed(1)} of ${check.threshold})`,
      requestId: job.requestId,
      evidence: check,
    },
  ];
  if (step.cheating)
    events.push({
      kind: "answer_substitution",
      detail: `real answers for ${model.id} are not consistent with the model: the detector reached ${step.statistic.toFixed(1)} (threshold ${check.threshold}, false-alarm bound ${settings.falseAlarm} over ${settings.horizon} checked answers) after ${step.state.checked} checked answers`,
      requestId: job.requestId,
      evidence: { model: model.id, reference: reference.providerId, last_check: check },
    });
  await noteTrustEvents(app, host.providerId, events);
}

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
  if (!job || host.route !== "marketplace" || host.dialect !== "openai" || job.outcome !== "completed")
    return;
  if (app.env.VERIFY_SHARE <= 0 || Math.random() >= app.env.VERIFY_SHARE) return;
  if (todaySpent() >= app.env.VERIFY_DAILY_BUDGET_MICROUNITS) return;
  const reference = candidates.find(
    (candidate) => candidate.route === "centralized" && candidate.dialect === "openai",
  );
  if (!reference) return;
  checkAnswer(app, model, host, reference, job).catch((error: unknown) =>
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
    scheduleCanary(app, candidate, model);
    scheduleAnswerCheck(app, model, candidates, candidate, job);
  };
}
