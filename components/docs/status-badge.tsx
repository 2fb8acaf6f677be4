import { statusLabels } from "@/lib/docs/navigation";
import type { PageStatus } from "@/lib/docs/source";

/** A small pill for pages that describe features that are being built or not built yet. */
export function StatusBadge({ status }: { status: PageStatus }) {
  const label = statusLabels[status];
  if (label === undefined) return null;
  return <span className={`status-badge status-badge--${status}`}>{label}</span>;
}
