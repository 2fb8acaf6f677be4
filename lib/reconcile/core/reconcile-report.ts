import type { UpstreamExcess } from "../../ledger/upstream-excess";
import type { Difference } from "./difference";

export interface ReconcileReport {
  differences: Difference[];
  /** Sources compared, and those left out with the reason (not configured). */
  checked: string[];
  skipped: string[];
  /** Sources configured but not readable now (unreachable, refused): named, with the reason. */
  unreadable: { source: string; reason: string }[];
  /**
   * Explained, not a difference: what centralized upstreams reported beyond what the gateway
   * billed, as booked to their upstream-excess accounts (the operator's cost beyond revenue).
   */
  upstreamExcess: UpstreamExcess;
}

/** `npm run reconcile`'s exit code: 0 agreed, 1 differences, 2 a source could not be read (nothing proven). */
export function reconcileExitCode(report: ReconcileReport): 0 | 1 | 2 {
  if (report.differences.length > 0) return 1;
  return report.unreadable.length > 0 ? 2 : 0;
}

/** The report as JSON (amounts as decimal strings, as every money field the gateway exposes). */
export function reportJson(report: ReconcileReport) {
  return {
    reconciled: report.differences.length === 0 && report.unreadable.length === 0,
    unexplained_microunits: report.differences
      .reduce((total, one) => total + (one.microunits < 0n ? -one.microunits : one.microunits), 0n)
      .toString(),
    differences: report.differences.map((one) => ({ ...one, microunits: one.microunits.toString() })),
    checked: report.checked,
    skipped: report.skipped,
    unreadable: report.unreadable,
    upstream_excess: {
      total_microunits: report.upstreamExcess.totalMicrounits.toString(),
      providers: report.upstreamExcess.providers.map((one) => ({
        provider: one.provider,
        microunits: one.microunits.toString(),
      })),
    },
  };
}
