import { formatUtc } from "@/components/dashboard/format";
import { ScrollRegion } from "@/components/dashboard/scroll-region";
import { TableHead } from "@/components/dashboard/table-head";
import type { OperatorActionRow } from "@/lib/operator-log/operator-actions";

const actionWords: Record<string, string> = {
  host_suspend: "suspended host",
  host_activate: "activated host",
  host_slash: "slashed host",
  payout_approve: "approved payout",
  credit: "credited",
  catalog_refresh: "refreshed the catalog",
};

/** The audit log: who did what to what, and when. */
export function OperatorActionsTable({ rows }: { rows: OperatorActionRow[] }) {
  if (rows.length === 0) return <p className="dash-muted">No operator actions yet.</p>;
  return (
    <ScrollRegion label="Operator actions">
      <table className="dash-table" data-testid="operator-actions">
        <TableHead columns={["Time (UTC)", "Who", "What", "Detail"]} />
        <tbody>
          {rows.map((row) => (
            <tr key={row.id.toString()} data-action={row.action}>
              <td className="dash-table__time">{formatUtc(row.createdAt)}</td>
              <td>{row.operator}</td>
              <td>
                {actionWords[row.action] ?? row.action} <code>{row.subject}</code>
              </td>
              <td className="dash-wrap">
                {Object.entries(row.detail)
                  .map(([key, value]) => `${key}: ${String(value)}`)
                  .join(" · ")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
