import { formatDuration, formatUsd, formatUtc } from "@/components/dashboard/format";
import { ScrollRegion } from "@/components/dashboard/scroll-region";
import { StatList } from "@/components/dashboard/stat-cards";
import { TableHead } from "@/components/dashboard/table-head";
import { findConsoleHost } from "@/lib/operator-console/console-reads";
import { openNoticesOf } from "@/lib/operator-console/operator-notices";
import { listOperatorActions } from "@/lib/operator-log/operator-actions";
import { hostTrustRecord } from "@/lib/trust/trust-view";
import { ActionButton } from "./action-button";
import { SlashForm } from "./host-forms";
import type { OperatorConsoleSession } from "./operator-console-session";
import { StandingBadge } from "./standing-badge";

/** One host: its standing and why, canaries, the record with its evidence, slashes, and the actions. */
export async function HostView({ session, hostId }: { session: OperatorConsoleSession; hostId: string }) {
  const db = session.app.database.db;
  const host = await findConsoleHost(db, hostId);
  if (host === undefined) return <p className="dash-alert dash-alert--error">No host with that id.</p>;
  const trust = await hostTrustRecord(db, hostId);
  const agent = session.app.routing.registry.agents().find((entry) => entry.providerId === hostId);
  const away = (await openNoticesOf(db, "agent_disconnected")).get(hostId);
  const awayLimit = formatDuration(session.app.env.OPERATOR_AGENT_OFFLINE_SECONDS);
  // The standing alone says "routed as usual" of a host that is not active or has no agent.
  const routing =
    host.status !== "active"
      ? `not routed while ${host.status}`
      : host.standing !== "excluded" && agent === undefined
        ? "not routed while no agent is connected"
        : trust.routing;
  // Who slashed: the audit log names the operator; the slash row only says "admin" or "canaries".
  const slashedBy = new Map(
    (await listOperatorActions(db, 200, "host_slash"))
      .filter((action) => action.subject === hostId)
      .map((action) => [String(action.detail.slash_id), action.operator]),
  );
  return (
    <>
      <section className="dash-section" aria-labelledby="host-title">
        <h2 id="host-title">
          {host.name} <StandingBadge standing={host.standing} />
        </h2>
        <p className="dash-muted">
          <code className="dash-wrap">{host.id}</code> · {host.status} · {routing}
        </p>
        <p data-testid="host-agent">
          {agent
            ? `Agent connected since ${formatUtc(agent.connectedAt)} UTC, last heard ${formatUtc(agent.lastSeenAt)} UTC.`
            : away
              ? `${away.text.replace(`Host ${host.name}'s agent`, "Agent")}. You were told at ${formatUtc(away.createdAt)} UTC.`
              : `Agent not connected${
                  host.agentLastSeenAt ? `, last seen ${formatUtc(host.agentLastSeenAt)} UTC` : ", never seen"
                }.${host.status === "active" ? ` You are told once it has been away ${awayLimit}.` : ""}`}
        </p>
        {trust.reasons.length === 0 ? null : (
          <ul data-testid="standing-reasons">
            {trust.reasons.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        )}
        <StatList
          cards={[
            { id: "bond", label: "Bond", value: formatUsd(host.bondMicrounits) },
            { id: "earnings", label: "Earnings", value: formatUsd(host.earningsMicrounits) },
            {
              id: "canaries",
              label: "Canaries",
              value: `${trust.canaries.failed} failed of ${trust.canaries.checked}`,
              hint: "Verification jobs among the recent ones",
            },
            {
              id: "findings",
              label: "Findings, 24 h",
              value: `${trust.metering_findings_24h} metering · ${trust.protocol_violations_24h} protocol`,
            },
          ]}
        />
      </section>
      <section className="dash-card" aria-labelledby="host-actions-title">
        <h2 id="host-actions-title">Actions</h2>
        <p className="dash-muted">
          Suspended, a host is not routed to and its money is frozen. Slashing suspends it and pays its
          immature earnings and bond back to the callers it served.
        </p>
        <div className="dash-actions">
          {host.status === "active" ? (
            <ActionButton
              path={`hosts/${hostId}/suspend`}
              label="Suspend"
              confirm="Suspend this host? It is not routed to and its money is frozen."
              done="Suspended."
            />
          ) : (
            <ActionButton path={`hosts/${hostId}/activate`} label="Activate" done="Activated." />
          )}
        </div>
        <SlashForm hostId={hostId} />
      </section>
      <section className="dash-section" aria-labelledby="record-title">
        <h2 id="record-title">Record and evidence</h2>
        {trust.events.length === 0 ? (
          <p className="dash-muted">Nothing recorded: no canary, no finding.</p>
        ) : (
          <ul className="dash-evidence" data-testid="trust-events">
            {trust.events.map((event) => (
              <li
                key={`${event.created_at}-${event.kind}-${event.request_id ?? ""}-${event.detail}`}
                data-kind={event.kind}
              >
                <p>
                  <span className="dash-table__time">{formatUtc(event.created_at)}</span>{" "}
                  <strong>{event.kind}</strong>
                  {event.request_id ? (
                    <>
                      {" "}
                      on <code>{event.request_id}</code>
                    </>
                  ) : null}
                  : {event.detail}
                </p>
                {Object.keys(event.evidence).length === 0 ? null : (
                  <details>
                    <summary>Evidence</summary>
                    {/* biome-ignore lint/a11y/noNoninteractiveTabindex: long evidence scrolls sideways; the keyboard must reach it. */}
                    <pre className="dash-code-line" tabIndex={0}>
                      {JSON.stringify(event.evidence, null, 2)}
                    </pre>
                  </details>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="dash-section" aria-labelledby="slashes-title">
        <h2 id="slashes-title">Slashes</h2>
        {trust.slashes.length === 0 ? (
          <p className="dash-muted">Never slashed.</p>
        ) : (
          <ScrollRegion label="Slashes">
            <table className="dash-table" data-testid="slashes-table">
              <TableHead
                columns={[
                  "Time (UTC)",
                  "By",
                  "Reason",
                  { numeric: "Taken" },
                  { numeric: "Refunded" },
                  "Callers",
                ]}
              />
              <tbody>
                {trust.slashes.map((slash) => (
                  <tr key={slash.slash_id}>
                    <td className="dash-table__time">{formatUtc(slash.created_at)}</td>
                    <td>{slashedBy.get(slash.slash_id) ?? slash.trigger}</td>
                    <td className="dash-wrap">{slash.reason}</td>
                    <td className="dash-table__num">
                      {formatUsd(slash.earnings_microunits + slash.bond_microunits)}
                    </td>
                    <td className="dash-table__num">{formatUsd(slash.refunded_microunits)}</td>
                    <td>{slash.callers_refunded}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        )}
      </section>
    </>
  );
}
