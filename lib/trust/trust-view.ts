import type { HostReputation, HostTrustEvent } from "@pod-gateway/contracts/host-api";
import { and, desc, eq, gt, inArray, notInArray } from "drizzle-orm";
import type { Executor } from "../db/client";
import { hostSlashes, hostTrustEvents } from "../db/schema";
import { goodReputation, type Reputation } from "../providers/host-standing";
import { loadReputations } from "./reputation";

/** What routing does with a host of this status and standing, in words. */
function routingWords(reputation: Reputation, status: string | undefined): string {
  if (status === "pending") return "not routed until its bond is seen and the host is active";
  if (status === "suspended") return "not routed: the host is suspended";
  if (status === "retiring" || status === "retired") return `not routed: the host is ${status}`;
  return reputation.standing === "good"
    ? "routed as usual"
    : reputation.standing === "demoted"
      ? "tried after every host in good standing"
      : "not routed";
}

/**
 * A host's standing as the host API and the dashboard show it: what routing does with it, and
 * why. `status`: the host's, when known (a pending or suspended host is not routed whatever its
 * standing).
 */
function reputationView(reputation: Reputation, status?: string): HostReputation {
  return {
    standing: reputation.standing,
    routing: routingWords(reputation, status),
    reasons: reputation.reasons,
    canaries: { checked: reputation.counts.canaries, failed: reputation.counts.canaryFailures },
    metering_findings_24h: reputation.counts.meteringFindings,
    protocol_violations_24h: reputation.counts.protocolViolations,
    broken_jobs_1h: reputation.counts.brokenJobs,
    answers_checked_30d: reputation.counts.answersChecked,
  };
}

export async function hostReputationView(
  executor: Executor,
  hostId: string,
  status?: string,
): Promise<HostReputation> {
  const reputations = await loadReputations(executor, [hostId]);
  return reputationView(reputations.get(hostId) ?? goodReputation, status);
}

const canaryKinds = ["canary_pass", "canary_fail"];
/** Evidence fields a host is not shown: a canary's words, the detector's inner state. */
const hiddenEvidence = new Set(["canary", "prompt", "answer", "reference_answer", "detector", "last_check"]);

/** The evidence's plain values (numbers, short strings), without what the host is not shown. */
function shownEvidence(evidence: Record<string, unknown>): HostTrustEvent["evidence"] {
  const shown: HostTrustEvent["evidence"] = {};
  for (const [key, value] of Object.entries(evidence)) {
    if (hiddenEvidence.has(key)) continue;
    if (typeof value === "number" || typeof value === "boolean" || value === null) shown[key] = value;
    else if (typeof value === "string" && value.length <= 200) shown[key] = value;
  }
  return shown;
}

/**
 * The host's newest trust events, with their evidence, as the host may see them: canary verdicts
 * are left out (their counts are in the standing), since a host that could place them among its
 * jobs could learn to tell canaries.
 */
export async function hostTrustEventsView(executor: Executor, hostId: string): Promise<HostTrustEvent[]> {
  const events = await executor
    .select()
    .from(hostTrustEvents)
    .where(and(eq(hostTrustEvents.hostId, hostId), notInArray(hostTrustEvents.kind, canaryKinds)))
    .orderBy(desc(hostTrustEvents.id))
    .limit(20);
  return events.map((event) => ({
    kind: event.kind,
    detail: event.detail,
    created_at: event.createdAt.toISOString(),
    request_id: event.requestId,
    evidence: shownEvidence(event.evidence),
  }));
}

const breakKinds = ["first_chunk_missed", "stalled", "stream_cut"];

/** The host's newest broken job within `withinMs`, if any. */
export async function lastBrokenJob(executor: Executor, hostId: string, withinMs: number) {
  const [row] = await executor
    .select({
      kind: hostTrustEvents.kind,
      detail: hostTrustEvents.detail,
      createdAt: hostTrustEvents.createdAt,
    })
    .from(hostTrustEvents)
    .where(
      and(
        eq(hostTrustEvents.hostId, hostId),
        inArray(hostTrustEvents.kind, breakKinds),
        gt(hostTrustEvents.createdAt, new Date(Date.now() - withinMs)),
      ),
    )
    .orderBy(desc(hostTrustEvents.id))
    .limit(1);
  return row;
}

/** The operator's view: the standing, the recent record with its evidence, and the slashes. */
export async function hostTrustRecord(executor: Executor, hostId: string) {
  const events = await executor
    .select()
    .from(hostTrustEvents)
    .where(eq(hostTrustEvents.hostId, hostId))
    .orderBy(desc(hostTrustEvents.id))
    .limit(50);
  const slashes = await executor
    .select()
    .from(hostSlashes)
    .where(eq(hostSlashes.hostId, hostId))
    .orderBy(desc(hostSlashes.createdAt));
  return {
    provider_id: hostId,
    ...(await hostReputationView(executor, hostId)),
    events: events.map((event) => ({
      kind: event.kind,
      detail: event.detail,
      request_id: event.requestId,
      evidence: event.evidence,
      created_at: event.createdAt.toISOString(),
    })),
    slashes: slashes.map((slash) => ({
      slash_id: slash.id,
      trigger: slash.trigger,
      reason: slash.reason,
      earnings_microunits: Number(slash.earningsMicrounits),
      bond_microunits: Number(slash.bondMicrounits),
      refunded_microunits: Number(slash.refundedMicrounits),
      remainder_microunits: Number(slash.remainderMicrounits),
      callers_refunded: slash.callersRefunded,
      created_at: slash.createdAt.toISOString(),
    })),
  };
}
