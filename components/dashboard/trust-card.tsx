import type { HostReputation } from "@pod-gateway/contracts/host-api";

const standingText: Record<HostReputation["standing"], string> = {
  good: "Good standing",
  demoted: "Demoted",
  excluded: "Excluded from routing",
};

/**
 * The host's standing from the gateway's checks (metering, canaries, answer checks, broken jobs,
 * protocol), and why. Routing needs a connected agent as well as the standing: a host in good
 * standing with no agent is not routed, and the card says so rather than "routed as usual".
 */
export function TrustCard({ reputation, connected }: { reputation: HostReputation; connected: boolean }) {
  const routing =
    !connected && reputation.standing !== "excluded"
      ? "not routed while no agent is connected"
      : reputation.routing;
  return (
    <section className="dash-card" aria-labelledby="trust-title">
      <h2 id="trust-title">Trust</h2>
      <p data-testid="trust-summary">
        <strong>{standingText[reputation.standing]}</strong>: {routing}. {reputation.answers_checked_30d} real{" "}
        {reputation.answers_checked_30d === 1 ? "answer" : "answers"} checked against a reference of the model
        in the last 30 days; {reputation.canaries.checked} canary{" "}
        {reputation.canaries.checked === 1 ? "job" : "jobs"} checked, {reputation.canaries.failed} failed;{" "}
        {reputation.broken_jobs_1h} broken {reputation.broken_jobs_1h === 1 ? "job" : "jobs"} (no first chunk
        in time, stalled or cut) in the last hour; {reputation.metering_findings_24h} metering findings and{" "}
        {reputation.protocol_violations_24h} protocol violations in the last 24 hours.
      </p>
      {reputation.reasons.length === 0 ? null : (
        <ul className="dash-muted">
          {reputation.reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      )}
      <p className="dash-muted">
        How the gateway meters jobs and checks hosts: <a href="/docs/marketplace/trust">Trust</a>.
      </p>
    </section>
  );
}
