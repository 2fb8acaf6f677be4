import { and, gt, inArray, sql } from "drizzle-orm";
import type { Executor } from "../db/client";
import { hostTrustEvents } from "../db/schema";
import type { Reputation, ReputationBook, Standing } from "../providers/host-standing";

/**
 * A host's standing (lib/providers/host-standing.ts) is computed from its trust events
 * (lib/trust/trust-events.ts) by these rules, in one place (documented on the trust page).
 */
const reputationRules = {
  /** Canary verdicts considered: the most recent ones. */
  canaryWindow: 20,
  /** Metering findings and protocol violations count over this window. */
  eventWindowSeconds: 24 * 3600,
  /**
   * Broken jobs count over this shorter window: a host that stops answering is out within a few
   * callers, and back once it has been quiet this long (a caller it holds waits at most the
   * first-chunk deadline).
   */
  brokenJobWindowSeconds: 3600,
  /**
   * Checked answers and the detector's verdicts count over this window (lib/canaries/check-answer.ts):
   * one verdict excludes the host and proves substitution, since the detector's own threshold
   * already holds its false-alarm rate to VERIFY_FALSE_ALARM.
   */
  answerWindowSeconds: 30 * 24 * 3600,
  demote: { canaryFailures: 1, meteringFindings: 1, protocolViolations: 3, brokenJobs: 2 },
  exclude: {
    canaryFailures: 3,
    canaryFailureRate: 0.5,
    meteringFindings: 5,
    protocolViolations: 10,
    brokenJobs: 5,
  },
  /** Proven substitution: this many failures, at this rate, among the recent canaries. */
  prove: { canaryFailures: 5, canaryFailureRate: 0.8 },
} as const;

interface Tally {
  canaries: boolean[];
  meteringFindings: number;
  protocolViolations: number;
  brokenJobs: number;
  answersChecked: number;
  substitutionVerdicts: number;
}

/** Applies the rules to one host's tally. */
function judge(tally: Tally): Reputation {
  const rules = reputationRules;
  const canaries = tally.canaries.length;
  const canaryFailures = tally.canaries.filter((passed) => !passed).length;
  const rate = canaries === 0 ? 0 : canaryFailures / canaries;
  const counts = {
    canaries,
    canaryFailures,
    meteringFindings: tally.meteringFindings,
    protocolViolations: tally.protocolViolations,
    brokenJobs: tally.brokenJobs,
    answersChecked: tally.answersChecked,
  };
  const reasons: string[] = [];
  let standing: Standing = "good";
  const raise = (to: Standing) => {
    if (to === "excluded" || standing === "good") standing = to;
  };
  if (canaryFailures >= rules.demote.canaryFailures) {
    reasons.push(
      `${canaryFailures} of the last ${canaries} canary answers were not consistent with the model under the reference`,
    );
    raise(
      canaryFailures >= rules.exclude.canaryFailures && rate >= rules.exclude.canaryFailureRate
        ? "excluded"
        : "demoted",
    );
  }
  if (tally.meteringFindings >= rules.demote.meteringFindings) {
    reasons.push(
      `${tally.meteringFindings} reported usage figure(s) in the last 24 hours were beyond the gateway's count or refused`,
    );
    raise(tally.meteringFindings >= rules.exclude.meteringFindings ? "excluded" : "demoted");
  }
  if (tally.protocolViolations >= rules.demote.protocolViolations) {
    reasons.push(`${tally.protocolViolations} protocol violations by its agent in the last 24 hours`);
    raise(tally.protocolViolations >= rules.exclude.protocolViolations ? "excluded" : "demoted");
  }
  if (tally.brokenJobs >= rules.demote.brokenJobs) {
    reasons.push(
      `${tally.brokenJobs} job(s) in the last hour accepted and then broken (no first chunk in time, a stall or a cut answer)`,
    );
    raise(tally.brokenJobs >= rules.exclude.brokenJobs ? "excluded" : "demoted");
  }
  if (tally.substitutionVerdicts > 0) {
    reasons.push(
      `its real answers were found inconsistent with the model it announced (${tally.substitutionVerdicts} verdict(s) of the answer checks in the last 30 days, over ${tally.answersChecked} checked answers)`,
    );
    raise("excluded");
  }
  const proven =
    tally.substitutionVerdicts > 0 ||
    (canaryFailures >= rules.prove.canaryFailures && rate >= rules.prove.canaryFailureRate);
  return { standing, proven, reasons, counts };
}

const meteringKinds = ["over_claim", "invalid_claim", "over_limit"];
const brokenJobKinds = ["first_chunk_missed", "stalled", "stream_cut"];

/** The reputation of each of `hostIds` (all hosts with recent events when absent), from the database. */
export async function loadReputations(
  executor: Executor,
  hostIds?: readonly string[],
): Promise<Map<string, Reputation>> {
  const since = new Date(Date.now() - reputationRules.eventWindowSeconds * 1000);
  const hostFilter = hostIds ? [inArray(hostTrustEvents.hostId, [...hostIds])] : [];
  if (hostIds && hostIds.length === 0) return new Map();
  const tallies = new Map<string, Tally>();
  const tallyOf = (hostId: string) => {
    let tally = tallies.get(hostId);
    if (!tally) {
      tally = {
        canaries: [],
        meteringFindings: 0,
        protocolViolations: 0,
        brokenJobs: 0,
        answersChecked: 0,
        substitutionVerdicts: 0,
      };
      tallies.set(hostId, tally);
    }
    return tally;
  };
  const events = await executor
    .select({ hostId: hostTrustEvents.hostId, kind: hostTrustEvents.kind, count: sql<number>`COUNT(*)::int` })
    .from(hostTrustEvents)
    .where(
      and(
        gt(hostTrustEvents.createdAt, since),
        inArray(hostTrustEvents.kind, [...meteringKinds, "protocol_violation"]),
        ...hostFilter,
      ),
    )
    .groupBy(hostTrustEvents.hostId, hostTrustEvents.kind);
  for (const row of events) {
    const tally = tallyOf(row.hostId);
    if (row.kind === "protocol_violation") tally.protocolViolations += Number(row.count);
    else tally.meteringFindings += Number(row.count);
  }
  const brokenSince = new Date(Date.now() - reputationRules.brokenJobWindowSeconds * 1000);
  const broken = await executor
    .select({ hostId: hostTrustEvents.hostId, count: sql<number>`COUNT(*)::int` })
    .from(hostTrustEvents)
    .where(
      and(
        gt(hostTrustEvents.createdAt, brokenSince),
        inArray(hostTrustEvents.kind, brokenJobKinds),
        ...hostFilter,
      ),
    )
    .groupBy(hostTrustEvents.hostId);
  for (const row of broken) tallyOf(row.hostId).brokenJobs += Number(row.count);
  const answersSince = new Date(Date.now() - reputationRules.answerWindowSeconds * 1000);
  const answers = await executor
    .select({ hostId: hostTrustEvents.hostId, kind: hostTrustEvents.kind, count: sql<number>`COUNT(*)::int` })
    .from(hostTrustEvents)
    .where(
      and(
        gt(hostTrustEvents.createdAt, answersSince),
        inArray(hostTrustEvents.kind, ["answer_checked", "answer_substitution"]),
        ...hostFilter,
      ),
    )
    .groupBy(hostTrustEvents.hostId, hostTrustEvents.kind);
  for (const row of answers) {
    const tally = tallyOf(row.hostId);
    if (row.kind === "answer_checked") tally.answersChecked += Number(row.count);
    else tally.substitutionVerdicts += Number(row.count);
  }
  // The most recent canary verdicts per host, whatever their age.
  const recent = executor
    .select({
      hostId: hostTrustEvents.hostId,
      kind: hostTrustEvents.kind,
      rank: sql<number>`ROW_NUMBER() OVER (PARTITION BY ${hostTrustEvents.hostId} ORDER BY ${hostTrustEvents.id} DESC)`.as(
        "rank",
      ),
    })
    .from(hostTrustEvents)
    .where(and(inArray(hostTrustEvents.kind, ["canary_pass", "canary_fail"]), ...hostFilter))
    .as("recent");
  const canaries = await executor
    .select({ hostId: recent.hostId, kind: recent.kind })
    .from(recent)
    .where(sql`${recent.rank} <= ${reputationRules.canaryWindow}`);
  for (const row of canaries) tallyOf(row.hostId).canaries.push(row.kind === "canary_pass");
  const reputations = new Map<string, Reputation>();
  for (const [hostId, tally] of tallies) reputations.set(hostId, judge(tally));
  return reputations;
}

/** Re-reads standings into the process's book: every host's, or those of `hostIds`. */
export async function refreshReputations(
  book: ReputationBook,
  executor: Executor,
  hostIds?: readonly string[],
): Promise<void> {
  book.apply(await loadReputations(executor, hostIds), hostIds);
}
