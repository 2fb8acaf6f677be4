import type { HostReputation } from "@pod-gateway/contracts/host-api";

const standingText: Record<HostReputation["standing"], string> = {
  good: "Good standing",
  demoted: "Demoted",
  excluded: "Excluded from routing",
};

/** The host's standing from the gateway's checks (metering, canaries, protocol), and why. */
export function TrustCard({ reputation }: { reputation: HostReputation }) {
  return (
    <section className="dash-card" aria-labelledby="trust-title">
      <h2 id="trust-title">Trust</h2>
      <p data-testid="trust-summary">
        <strong>{standingText[reputation.standing]}</strong>: {reputation.routing}.{" "}
        {reputation.canaries.checked} canary {reputation.canaries.checked === 1 ? "job" : "jobs"} checked,{" "}
        {reputation.canaries.failed} failed; {reputation.metering_findings_24h} metering findings and{" "}
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
