/** What the request path finds wrong with what a host reported (lib/usage's meter); trust stores each as an event. */
export type HostFindingKind = "over_claim" | "invalid_claim" | "over_limit";

/** One observation about the host that served one request. */
export interface HostFinding {
  hostId: string;
  kind: HostFindingKind;
  /** In words, for the host and the operator. */
  detail: string;
  requestId: string;
  evidence: Record<string, unknown>;
}

/**
 * Where the request path hands what it found about a host. `report` returns nothing on
 * purpose: a request never waits on trust. Storing the findings, re-reading the host's standing
 * and slashing happen after, off the request's path (lib/trust/trust-finding-recorder.ts and
 * the upkeep's trust pass).
 */
export interface TrustFindingSink {
  report(findings: readonly HostFinding[]): void;
}
