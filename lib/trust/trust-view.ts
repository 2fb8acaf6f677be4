import type { HostReputation } from "@pod-gateway/contracts/host-api";
import { desc, eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { hostSlashes, hostTrustEvents } from "../db/schema";
import { goodReputation, type Reputation } from "../providers/host-standing";
import { loadReputations } from "./reputation";

/** A host's standing as the host API and the dashboard show it: what routing does with it, and why. */
function reputationView(reputation: Reputation): HostReputation {
  return {
    standing: reputation.standing,
    routing:
      reputation.standing === "good"
        ? "routed as usual"
        : reputation.standing === "demoted"
          ? "tried after every host in good standing"
          : "not routed",
    reasons: reputation.reasons,
    canaries: { checked: reputation.counts.canaries, failed: reputation.counts.canaryFailures },
    metering_findings_24h: reputation.counts.meteringFindings,
    protocol_violations_24h: reputation.counts.protocolViolations,
    broken_jobs_1h: reputation.counts.brokenJobs,
    answers_checked_30d: reputation.counts.answersChecked,
  };
}

export async function hostReputationView(executor: Executor, hostId: string): Promise<HostReputation> {
  const reputations = await loadReputations(executor, [hostId]);
  return reputationView(reputations.get(hostId) ?? goodReputation);
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
