import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { CatalogModel } from "../catalog/models";
import { hostTrustEvents } from "../db/schema";
import { translateRequest } from "../dialects/translate";
import { ensureAccount } from "../ledger/accounts";
import { postTransaction } from "../ledger/post-transaction";
import { log } from "../log";
import { costOfUsage, emptyUsage } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";
import type { ServedJob } from "../proxy/reserved-request";
import { noteTrustEvents } from "../trust/note-trust-events";
import type { TrustEventInput } from "../trust/trust-events";
import type { TrustServices } from "../trust/trust-services";
import { answerEvidence, defaultEvidenceSettings } from "../verification/answer-evidence";
import {
  type DetectorSettings,
  type DetectorState,
  defaultDetectorSettings,
  detectorThreshold,
  newDetector,
  observeAnswer,
} from "../verification/cheat-detector";
import { parseScoring, scoringRequest } from "../verification/reference-scoring";
import { resampleEvidence } from "../verification/resample-evidence";
import { referenceSamples } from "./resample-answer";

/**
 * Checking one served answer (a real job's or a canary's, in either format) against a trusted
 * reference for the same model: scored under the reference's log-probabilities where it gives
 * them (lib/verification/reference-scoring.ts), else compared with the reference's own samples of
 * the same request (./resample-answer.ts); either way an e-value that feeds the (host, model)
 * detector (lib/verification/cheat-detector.ts), and the check is filed with its evidence on the
 * host's record. Real answers and canaries feed one detector: a canary is a real-shaped job
 * whose answer is always checked.
 */

/** What scoring costs is booked from this external budget to a per-host account. */
export const verificationBudget = { kind: "external", ref: "verification-budget" } as const;
const scoringTimeoutMs = 30_000;

/**
 * A canary fails when its answer alone is this strong evidence (its e-value at least 1,000): an
 * honest host's canary fails with probability at most 1/1,000 (Markov's inequality).
 */
const canaryFailLogE = Math.log(1000);

/**
 * Settings a check cannot account for: such jobs are not checked. Penalties and tools change what
 * is sampled; a reasoning setting puts a hidden trace before the answer, which a teacher-forced
 * score of the answer alone would not see.
 */
const unscorableFields = [
  "logit_bias",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "tools",
  "reasoning_effort",
  "thinking",
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

/** How long a reference that answered without log-probabilities is asked for samples instead. */
const noLogprobsMs = 60 * 60 * 1000;
/** References (provider and model) known to give no log-probabilities, until when. */
const withoutLogprobs = new Map<string, number>();

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
      metadata: { host_id: hostId, request_id: requestId, note: "reference check of an answer" },
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

type Scoring =
  | { kind: "scored"; scored: NonNullable<ReturnType<typeof parseScoring>> }
  | { kind: "none" | "failed" };

/**
 * The reference's teacher-forced reply, parsed: `none` when it gives no log-probabilities (it
 * refused the request as one it does not take, or answered without them), `failed` when it could
 * not answer now.
 */
async function scoreUnderReference(
  reference: Candidate,
  request: Record<string, unknown>,
  answer: string,
  maxTokens: number,
): Promise<Scoring> {
  const response = await reference.dispatch(JSON.stringify(scoringRequest(request, answer)), {
    signal: AbortSignal.timeout(scoringTimeoutMs),
    forwardHeaders: {},
  });
  const text = await response.text();
  if (!response.ok) {
    log.info("reference could not score an answer", {
      provider: reference.providerId,
      status: response.status,
    });
    const refused = response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status);
    return { kind: refused ? "none" : "failed" };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "failed" };
  }
  const scored = parseScoring(parsed, answer, maxTokens);
  if (scored) return { kind: "scored", scored };
  log.info("reference answered no teacher-forced log-probabilities", { provider: reference.providerId });
  return { kind: "none" };
}

/** One check's own findings, before the detector: its e-value, its figures and its words for the record. */
interface Finding {
  logE: number;
  figures: Record<string, unknown>;
  words: string;
}

const rounded = (value: number) => Number(value.toFixed(4));

/**
 * The finding on `answer` from the reference, and what asking cost: teacher-forced where the
 * reference gives log-probabilities, else from its samples of the same request. `request` is the
 * job's, in the reference's format and for its model.
 */
async function findAgainstReference(
  app: TrustServices,
  reference: Candidate,
  request: Record<string, unknown>,
  answer: string,
  temperature: number,
  maxTokens: number,
): Promise<{ finding?: Finding; cost: bigint }> {
  const key = `${reference.providerId}\n${reference.upstreamModelId}`;
  if (reference.dialect === "openai" && (withoutLogprobs.get(key) ?? 0) < Date.now()) {
    const scoring = await scoreUnderReference(reference, request, answer, maxTokens);
    if (scoring.kind === "failed") return { cost: 0n };
    if (scoring.kind === "scored") {
      const cost = costOfUsage(
        { ...emptyUsage, inputTokens: scoring.scored.promptTokens, outputTokens: 1 },
        reference.price,
      );
      const evidence = answerEvidence(scoring.scored.positions, temperature);
      if (!evidence) return { cost };
      return {
        cost,
        finding: {
          logE: evidence.logE,
          figures: {
            method: "logprobs",
            positions: evidence.positions,
            mean_logprob: rounded(evidence.meanLogprob),
            expected_logprob: rounded(evidence.expectedLogprob),
            log_e: rounded(evidence.logE),
          },
          words: `scored ${evidence.meanLogprob.toFixed(2)} nats a token under the reference where the model's own samples at temperature ${temperature} score ${evidence.expectedLogprob.toFixed(2)} (evidence ${evidence.logE.toFixed(1)}`,
        },
      };
    }
    withoutLogprobs.set(key, Date.now() + noLogprobsMs);
  }
  const samples = app.env.VERIFY_RESAMPLES;
  const sampledAt = Math.max(temperature, defaultEvidenceSettings.temperatureFloor);
  const sampled = await referenceSamples(reference, request, sampledAt, samples);
  const evidence = sampled.texts.length === samples ? resampleEvidence(answer, sampled.texts) : undefined;
  if (!evidence) return { cost: sampled.cost };
  return {
    cost: sampled.cost,
    finding: {
      logE: evidence.logE,
      figures: {
        method: "resampled",
        samples,
        sampled_temperature: sampledAt,
        host_similarity: rounded(evidence.hostSimilarity),
        reference_similarity: rounded(evidence.referenceSimilarity),
        rank: evidence.rank,
        e_value: rounded(evidence.eValue),
      },
      words: `compared with ${samples} samples of the same request from the reference (temperature ${sampledAt}): its similarity to them ${evidence.hostSimilarity.toFixed(2)} where theirs to each other is ${evidence.referenceSimilarity.toFixed(2)}, ${evidence.eValue > 0 ? `the odd one out of ${samples + 1}` : `${evidence.rank} of ${samples + 1} answers at least as unlike the others`} (evidence ${evidence.eValue.toFixed(1)}`,
    },
  };
}

/** The job's request as the reference takes it: its format, its model; undefined when it cannot be expressed. */
function referenceRequest(
  host: Candidate,
  reference: Candidate,
  forwarded: Record<string, unknown>,
): Record<string, unknown> | undefined {
  try {
    return translateRequest(host.dialect, reference.dialect, forwarded, reference.upstreamModelId);
  } catch {
    return undefined;
  }
}

/**
 * The reference a check asks: a centralized source, one in the OpenAI format first (it may give
 * log-probabilities; any other is asked for samples instead).
 */
export function referenceAmong(candidates: readonly Candidate[]): Candidate | undefined {
  const centralized = candidates.filter((candidate) => candidate.route === "centralized");
  return centralized.find((candidate) => candidate.dialect === "openai") ?? centralized[0];
}

/** Checks one served answer and files the check; undefined when it could not be checked. */
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
  const request = referenceRequest(host, reference, forwarded);
  if (temperature === undefined || answer.trim() === "" || !request) return undefined;
  const maxTokens = Number(
    forwarded.max_tokens ?? forwarded.max_completion_tokens ?? Number.POSITIVE_INFINITY,
  );
  const { finding, cost } = await findAgainstReference(
    app,
    reference,
    request,
    answer,
    temperature,
    maxTokens,
  );
  await bookScoring(app, host.providerId, job.requestId, cost);
  if (!finding) return undefined;
  const settings = detectorSettings(app);
  const step = observeAnswer(
    (await lastState(app, host.providerId, model.id)) ?? newDetector(settings),
    finding.logE,
    settings,
  );
  const check = {
    model: model.id,
    request_id: job.requestId,
    reference: reference.providerId,
    temperature,
    ...finding.figures,
    statistic: rounded(step.statistic),
    threshold: rounded(detectorThreshold(settings)),
    detector: step.state,
  };
  const checkedWords = `${finding.words}, running ${step.statistic.toFixed(1)} of ${check.threshold})`;
  const events: TrustEventInput[] = [];
  if (origin.kind === "real")
    events.push({
      kind: "answer_checked",
      detail: `answer ${checkedWords}`,
      requestId: job.requestId,
      evidence: check,
    });
  else {
    const failed = finding.logE >= canaryFailLogE;
    events.push({
      kind: failed ? "canary_fail" : "canary_pass",
      detail: `canary answer ${checkedWords}${failed ? `: the evidence of this answer alone is beyond ${canaryFailLogE.toFixed(1)} (an honest host's canary fails with a chance of at most 1 in 1,000)` : ""}`,
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
  return { logE: finding.logE, cheating: step.cheating };
}
