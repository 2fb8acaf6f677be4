import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { CatalogModel } from "../catalog/models";
import { hostTrustEvents } from "../db/schema";
import { ensureAccount } from "../ledger/accounts";
import { postTransaction } from "../ledger/post-transaction";
import { log } from "../log";
import { costOfUsage, emptyUsage } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";
import type { ServedJob } from "../proxy/reserved-request";
import { noteTrustEvents } from "../trust/note-trust-events";
import type { TrustEventInput } from "../trust/trust-events";
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

/**
 * Scoring one served answer (a real job's or a canary's) under a trusted reference for the same
 * model (lib/verification/reference-scoring.ts), feeding the (host, model) detector
 * (lib/verification/cheat-detector.ts) and filing the check with its evidence on the host's
 * record. Real answers and canaries feed one detector: a canary is a real-shaped job whose
 * answer is always checked.
 */

/** What scoring costs is booked from this external budget to a per-host account. */
export const verificationBudget = { kind: "external", ref: "verification-budget" } as const;
const scoringTimeoutMs = 30_000;

/**
 * A canary fails when its answer alone is this strong evidence (its e-value at least 1,000): an
 * honest host's canary fails with probability at most 1/1,000 (Markov's inequality).
 */
const canaryFailLogE = Math.log(1000);

/** Sampling settings a teacher-forced score cannot account for: such jobs are not checked. */
const unscorableFields = [
  "logit_bias",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "tools",
];

/** Kinds whose evidence carries the detector's state after them. */
const detectorKinds = ["answer_checked", "canary_pass", "canary_fail"];

/** Verification spent by this process today (scoring, canary top-ups), against VERIFY_DAILY_BUDGET_MICROUNITS. */
const spent = { day: "", microunits: 0n };

/** Counts money moved out of the verification budget today (a canary caller's top-up). */
export function noteVerificationSpend(microunits: bigint): void {
  todaySpent();
  spent.microunits += microunits;
}

export function todaySpent(): bigint {
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
        inArray(hostTrustEvents.kind, detectorKinds),
        sql`${hostTrustEvents.evidence}->>'model' = ${model}`,
        sql`${hostTrustEvents.evidence} ? 'detector'`,
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
      metadata: { host_id: hostId, request_id: requestId, note: "reference scoring of an answer" },
      entries: [
        { accountId: budget, amount: -cost },
        { accountId: perHost, amount: cost },
      ],
    }),
  );
}

/** Where an answer came from: a real caller's job, or a canary (with what the record should show of it). */
export type AnswerOrigin = { kind: "real" } | { kind: "canary"; shown: Record<string, unknown> };

/** What a check found, for its caller; undefined when the answer could not be scored. */
export interface AnswerCheck {
  logE: number;
  cheating: boolean;
}

/** The reference's teacher-forced reply, parsed; undefined (logged) when it gave none. */
async function scoreUnderReference(
  reference: Candidate,
  forwarded: Record<string, unknown>,
  answer: string,
  maxTokens: number,
): Promise<ReturnType<typeof parseScoring>> {
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
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const scored = parseScoring(parsed, answer, maxTokens);
  if (!scored)
    log.info("reference answered no teacher-forced log-probabilities", { provider: reference.providerId });
  return scored;
}

/** Scores one served answer and files the check; undefined when it could not be scored. */
export async function scoreServedAnswer(
  app: TrustServices,
  model: CatalogModel,
  host: Candidate,
  reference: Candidate,
  job: ServedJob,
  origin: AnswerOrigin,
): Promise<AnswerCheck | undefined> {
  const forwarded = JSON.parse(job.forwardedBody) as Record<string, unknown>;
  const temperature = scorableTemperature(forwarded);
  const answer = job.answer();
  if (temperature === undefined || answer.trim() === "") return undefined;
  const maxTokens = Number(
    forwarded.max_tokens ?? forwarded.max_completion_tokens ?? Number.POSITIVE_INFINITY,
  );
  const scored = await scoreUnderReference(reference, forwarded, answer, maxTokens);
  if (!scored) return undefined;
  await bookScoring(
    app,
    host.providerId,
    job.requestId,
    costOfUsage({ ...emptyUsage, inputTokens: scored.promptTokens, outputTokens: 1 }, reference.price),
  );
  const evidence = answerEvidence(scored.positions, temperature);
  if (!evidence) return undefined;
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
  const scoredWords = `scored ${evidence.meanLogprob.toFixed(2)} nats a token under the reference where the model's own samples at temperature ${temperature} score ${evidence.expectedLogprob.toFixed(2)} (evidence ${evidence.logE.toFixed(1)}, running ${step.statistic.toFixed(1)} of ${check.threshold})`;
  const events: TrustEventInput[] = [];
  if (origin.kind === "real")
    events.push({
      kind: "answer_checked",
      detail: `answer ${scoredWords}`,
      requestId: job.requestId,
      evidence: check,
    });
  else {
    const failed = evidence.logE >= canaryFailLogE;
    events.push({
      kind: failed ? "canary_fail" : "canary_pass",
      detail: `canary answer ${scoredWords}${failed ? `: the evidence of this answer alone is beyond ${canaryFailLogE.toFixed(1)} (an honest host's canary fails with a chance of at most 1 in 1,000)` : ""}`,
      requestId: job.requestId,
      evidence: { ...check, canary: origin.shown },
    });
  }
  if (step.cheating)
    events.push({
      kind: "answer_substitution",
      detail: `answers for ${model.id} are not consistent with the model: the detector reached ${step.statistic.toFixed(1)} (threshold ${check.threshold}, false-alarm bound ${settings.falseAlarm} over ${settings.horizon} checked answers) after ${step.state.checked} checked answers`,
      // A canary's request id would tell the host which of its jobs was one.
      ...(origin.kind === "real" ? { requestId: job.requestId } : {}),
      evidence: { model: model.id, reference: reference.providerId, last_check: check },
    });
  await noteTrustEvents(app, host.providerId, events);
  return { logE: evidence.logE, cheating: step.cheating };
}
