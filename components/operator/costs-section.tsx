import Link from "next/link";
import { formatUsd } from "@/components/dashboard/format";
import { ScrollRegion } from "@/components/dashboard/scroll-region";
import { StatList } from "@/components/dashboard/stat-cards";
import { TableHead } from "@/components/dashboard/table-head";
import { readConsoleUpstreamExcess, readLosses } from "@/lib/operator-console/console-reads";
import { readVerificationSpend } from "@/lib/operator-console/verification-spend";
import type { OperatorConsoleSession } from "./operator-console-session";

/** What the operator pays beyond what callers pay: losses, upstream excess and verification, from the ledger. */
export async function CostsSection({ session }: { session: OperatorConsoleSession }) {
  const db = session.app.database.db;
  const [losses, excess, verification] = await Promise.all([
    readLosses(db),
    readConsoleUpstreamExcess(db),
    readVerificationSpend(db),
  ]);
  const today = verification.canaryTodayMicrounits + verification.scoringTodayMicrounits;
  return (
    <section className="dash-section" aria-labelledby="costs-title" data-testid="operator-costs">
      <h2 id="costs-title">Losses and costs</h2>
      <StatList
        cards={[
          {
            id: "losses",
            label: "Losses",
            value: formatUsd(losses),
            hint: "Usage no balance could cover, in all",
          },
          {
            id: "upstream-excess",
            label: "Upstream excess",
            value: formatUsd(excess.totalMicrounits),
            hint:
              excess.providers.length === 0
                ? "No upstream has billed beyond what callers were charged"
                : `Billed beyond what callers were charged (the meter's caps): ${excess.providers
                    .map((one) => `${one.provider} ${formatUsd(one.microunits)}`)
                    .join(" · ")}`,
          },
          {
            id: "verification-today",
            label: "Verification today",
            value: formatUsd(today),
            hint: `Canaries ${formatUsd(verification.canaryTodayMicrounits)} · scoring ${formatUsd(verification.scoringTodayMicrounits)}; the budget is ${formatUsd(session.app.env.VERIFY_DAILY_BUDGET_MICROUNITS)} a day per process (UTC)`,
          },
          {
            id: "verification",
            label: "Verification in all",
            value: formatUsd(verification.canaryMicrounits + verification.scoringMicrounits),
            hint: `Canaries ${formatUsd(verification.canaryMicrounits)} · scoring ${formatUsd(verification.scoringMicrounits)}; ${formatUsd(verification.canaryFloatMicrounits)} topped up for canaries, unspent`,
          },
        ]}
      />
      {verification.hosts.length === 0 ? null : (
        <ScrollRegion label="Scoring per host">
          <table className="dash-table" data-testid="scoring-per-host">
            <TableHead columns={["Host", { numeric: "Scoring its answers cost" }]} />
            <tbody>
              {verification.hosts.map((host) => (
                <tr key={host.hostId} data-host={host.hostId}>
                  <td>
                    <Link href={`/dashboard/admin/hosts/${host.hostId}`}>{host.name}</Link>
                  </td>
                  <td className="dash-table__num">{formatUsd(host.scoringMicrounits)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
