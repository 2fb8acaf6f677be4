import Link from "next/link";
import { formatUsd, formatUtc } from "@/components/dashboard/format";
import { ScrollRegion } from "@/components/dashboard/scroll-region";
import { TableHead } from "@/components/dashboard/table-head";
import { listConsoleHosts } from "@/lib/operator-console/console-reads";
import { openNoticesOf } from "@/lib/operator-console/operator-notices";
import type { OperatorConsoleSession } from "./operator-console-session";
import { StandingBadge } from "./standing-badge";

/** Every host, those needing a look first: status, standing and why, bond and earnings. */
export async function HostsView({ session }: { session: OperatorConsoleSession }) {
  const rows = await listConsoleHosts(session.app.database.db);
  const connected = new Set(session.app.routing.registry.agents().map((agent) => agent.providerId));
  const away = await openNoticesOf(session.app.database.db, "agent_disconnected");
  if (rows.length === 0) return <p className="dash-muted">No host has enrolled yet.</p>;
  return (
    <ScrollRegion label="Hosts">
      <table className="dash-table" data-testid="hosts-table">
        <TableHead
          columns={[
            "Host",
            "Status",
            "Standing",
            "Agent",
            { numeric: "Bond" },
            { numeric: "Earnings" },
            "Enrolled (UTC)",
          ]}
        />
        <tbody>
          {rows.map((host) => (
            <tr key={host.id} data-host={host.id} data-standing={host.standing}>
              <td>
                <Link href={`/dashboard/admin/hosts/${host.id}`}>{host.name}</Link>
              </td>
              <td>{host.status}</td>
              <td>
                <StandingBadge standing={host.standing} />
                {host.reasons.length === 0 ? null : (
                  <span className="dash-muted dash-block">{host.reasons.join("; ")}</span>
                )}
              </td>
              <td>
                {connected.has(host.id)
                  ? "connected"
                  : away.has(host.id)
                    ? `away, told ${formatUtc(away.get(host.id)?.createdAt ?? 0)}`
                    : host.agentLastSeenAt
                      ? `not connected, seen ${formatUtc(host.agentLastSeenAt)}`
                      : "never connected"}
              </td>
              <td className="dash-table__num">{formatUsd(host.bondMicrounits)}</td>
              <td className="dash-table__num">{formatUsd(host.earningsMicrounits)}</td>
              <td className="dash-table__time">{formatUtc(host.enrolledAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
