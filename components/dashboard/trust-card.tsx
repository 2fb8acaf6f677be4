import type { HostAgent, HostReputation, HostTrustEvent } from "@pod-gateway/contracts/host-api";
import { ScrollRegion } from "./scroll-region";
import { TableHead } from "./table-head";

const standingText: Record<HostReputation["standing"], string> = {
  good: "Good standing",
  demoted: "Demoted",
  excluded: "Excluded from routing",
};

const kindText: Record<string, string> = {
  answer_checked: "answer checked",
  answer_substitution: "answers not the model's",
  first_chunk_missed: "no first chunk in time",
  stalled: "stalled mid-answer",
  stream_cut: "answer cut",
  protocol_violation: "protocol violation",
  over_claim: "usage over-claimed",
  invalid_claim: "usage claim refused",
  over_limit: "output past the limit",
};

/**
 * What routing does with the host right now: the standing's verdict, unless the host's status
 * or its agent keep it out anyway (a pending host, an offline agent is not "routed as usual").
 */
function routingNow(reputation: HostReputation, status: string, agent: HostAgent["state"]): string {
  if (status !== "active" || reputation.standing === "excluded") return reputation.routing;
  if (agent === "offline") return "not routed while no agent is connected";
  if (agent === "stalled") return `${reputation.routing}, but its agent is stalled: callers fail over`;
  return reputation.routing;
}

/** The evidence's figures in one line: "log_e 12.3 · statistic 15.1 · threshold 14.5". */
function evidenceLine(evidence: HostTrustEvent["evidence"]): string {
  return Object.entries(evidence)
    .map(([key, value]) => `${key.replaceAll("_", " ")} ${String(value)}`)
    .join(" · ");
}

/**
 * The host's standing from the gateway's checks (metering, canaries, answer checks, broken jobs,
 * protocol), every reason, and the record behind them with each observation's evidence.
 */
export function TrustCard({
  reputation,
  events,
  status,
  agent,
}: {
  reputation: HostReputation;
  events: HostTrustEvent[];
  status: string;
  agent: HostAgent["state"];
}) {
  return (
    <section className="dash-card" aria-labelledby="trust-title">
      <h2 id="trust-title">Trust</h2>
      <p data-testid="trust-summary">
        <strong>{standingText[reputation.standing]}</strong>: {routingNow(reputation, status, agent)}.{" "}
        {reputation.answers_checked_30d} real {reputation.answers_checked_30d === 1 ? "answer" : "answers"}{" "}
        checked against a reference of the model in the last 30 days; {reputation.canaries.checked} canary{" "}
        {reputation.canaries.checked === 1 ? "job" : "jobs"} checked, {reputation.canaries.failed} failed;{" "}
        {reputation.broken_jobs_1h} broken {reputation.broken_jobs_1h === 1 ? "job" : "jobs"} (no first chunk
        in time, stalled or cut) in the last hour; {reputation.metering_findings_24h} metering findings and{" "}
        {reputation.protocol_violations_24h} protocol violations in the last 24 hours.
      </p>
      {reputation.reasons.length === 0 ? null : (
        <ul data-testid="trust-reasons">
          {reputation.reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      )}
      {events.length === 0 ? null : (
        <ScrollRegion label="Trust record">
          <table className="dash-table" data-testid="trust-events">
            <TableHead columns={["When (UTC)", "What", "Request", "Evidence"]} />
            <tbody>
              {events.map((event, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the record is re-read whole, and its rows carry no id a host may see (ids would show where hidden canary verdicts sit)
                <tr key={`${event.created_at}-${index}`}>
                  <td>{event.created_at.slice(0, 16).replace("T", " ")}</td>
                  <td title={event.detail}>{kindText[event.kind] ?? event.kind}</td>
                  <td>{event.request_id ? <code>{event.request_id}</code> : "–"}</td>
                  <td className="dash-muted">{evidenceLine(event.evidence) || event.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      <p className="dash-muted">
        Canary verdicts are counted above but not listed: knowing which of its jobs were canaries would teach
        a host to tell them. How the gateway meters jobs and checks hosts:{" "}
        <a href="/docs/marketplace/trust">Trust</a>.
      </p>
    </section>
  );
}
