import type { Executor } from "../db/client";
import { hostTrustEvents } from "../db/schema";
import { log } from "../log";
import type { HostFindingKind } from "../providers/trust-finding-sink";

type TrustEventKind =
  | HostFindingKind
  | "protocol_violation"
  | "canary_pass"
  | "canary_fail"
  /** Jobs the host accepted and broke (lib/marketplace/agent-jobs.ts). */
  | "first_chunk_missed"
  | "stalled"
  | "stream_cut"
  /** A real answer scored under the reference (lib/canaries/check-answer.ts), and the detector's verdict. */
  | "answer_checked"
  | "answer_substitution";

export interface TrustEventInput {
  kind: TrustEventKind;
  detail: string;
  requestId?: string;
  evidence?: Record<string, unknown>;
}

/** Details are the gateway's words, but may quote an agent: bounded before they are stored. */
const maxDetail = 500;

/** Stores observations about a host; a failure to store one is logged, never thrown into a request. */
export async function recordTrustEvents(
  executor: Executor,
  hostId: string,
  events: readonly TrustEventInput[],
): Promise<void> {
  if (events.length === 0) return;
  try {
    await executor.insert(hostTrustEvents).values(
      events.map((event) => ({
        hostId,
        kind: event.kind,
        requestId: event.requestId ?? null,
        detail: event.detail.slice(0, maxDetail),
        evidence: event.evidence ?? {},
      })),
    );
  } catch (error) {
    log.error("could not record trust events", { provider: hostId, error });
  }
  for (const event of events)
    if (event.kind !== "canary_pass" && event.kind !== "answer_checked")
      log.warn("host trust event", { provider: hostId, kind: event.kind, detail: event.detail });
}
