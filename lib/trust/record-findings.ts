import type { Candidate } from "../providers/candidate";
import type { MeterFinding } from "../usage/meter-usage";
import { noteTrustEvents } from "./note-trust-events";
import type { TrustServices } from "./trust-services";

/**
 * Files what the meter found on one request against the host that served it (marketplace
 * agents and key relays; a centralized upstream is no host). The agent's own job_done counts
 * go into the evidence beside the finding.
 */
export async function recordFindings(
  app: TrustServices,
  candidate: Candidate,
  requestId: string,
  findings: readonly MeterFinding[],
  agentTokens: Record<string, number> | undefined,
): Promise<void> {
  if (findings.length === 0 || candidate.route === "centralized") return;
  await noteTrustEvents(
    app,
    candidate.providerId,
    findings.map((finding) => ({
      kind: finding.kind,
      detail: finding.detail,
      requestId,
      evidence: {
        route: candidate.route,
        model: candidate.upstreamModelId,
        agent_tokens: agentTokens ?? null,
      },
    })),
  );
}
