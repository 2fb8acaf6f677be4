import type { Difference } from "./difference";

export interface ReconcileReport {
  differences: Difference[];
  /** Sources compared, and those left out with the reason (not configured). */
  checked: string[];
  skipped: string[];
}

/** The report as JSON (amounts as decimal strings, as every money field the gateway exposes). */
export function reportJson(report: ReconcileReport) {
  return {
    reconciled: report.differences.length === 0,
    unexplained_microunits: report.differences
      .reduce((total, one) => total + (one.microunits < 0n ? -one.microunits : one.microunits), 0n)
      .toString(),
    differences: report.differences.map((one) => ({ ...one, microunits: one.microunits.toString() })),
    checked: report.checked,
    skipped: report.skipped,
  };
}
