import Link from "next/link";
import { findBalanceAlert } from "@/lib/balance-watch/balance-alerts";
import { getDailySpendByModel, getSpendSummary, lastUtcDays } from "@/lib/dashboard/queries";
import { fundingSetup } from "@/lib/funding/funding-setup";
import { correctForLease } from "@/lib/tokens/token-balance";
import { DashboardNav } from "./dashboard-nav";
import type { DashboardSession } from "./dashboard-session";
import { formatUsd } from "./format";
import { RequestsTable } from "./requests-table";
import { SnippetTabs } from "./snippet-tabs";
import { buildSnippets } from "./snippets";
import { SpendChart } from "./spend-chart";
import { StatCards } from "./stat-cards";

const chartDays = 30;

/** The signed-in overview: numbers, the spend chart, recent activity and client setups. */
export async function DashboardHome({ session }: { session: DashboardSession }) {
  const db = session.app.database.db;
  const now = new Date();
  await session.app.leases?.flush();
  const [stored, daily, alert] = await Promise.all([
    getSpendSummary(db, session.record.accountId, now),
    getDailySpendByModel(db, session.record.accountId, chartDays, now),
    findBalanceAlert(db, session.record.id),
  ]);
  const setup = fundingSetup(session.app.env);
  const canFund = setup.card.enabled || setup.solana.enabled || setup.base.enabled;
  // Held is what this process's requests in flight reserve, not its lease.
  const summary = { ...stored, ...correctForLease(session.app, session.record.accountId, stored) };
  const owes = summary.owed > 0n;
  return (
    <>
      <header className="dash-header">
        <h1>Overview</h1>
        <p className="dash-lead">
          Token <code className="dash-token-hint">…{session.token.slice(-6)}</code> · deposit code{" "}
          <code>{session.record.depositCode}</code>
        </p>
      </header>
      <DashboardNav current="/dashboard" />
      <StatCards summary={summary} />
      {summary.available === 0n && owes ? (
        <p className="dash-alert dash-alert--warn" role="status" data-testid="owed-banner">
          A card refund or dispute took back more than your balance could give at the time: you owe{" "}
          {formatUsd(summary.owed)}. Requests answer 402 until it is paid; what requests in flight give back
          and your next funding pay it first.
        </p>
      ) : summary.available === 0n ? (
        canFund ? (
          <p className="dash-alert dash-alert--info">
            Your balance is empty: requests answer 402 until you <Link href="/dashboard/fund">add funds</Link>
            .
          </p>
        ) : (
          <p className="dash-alert dash-alert--info">
            Your balance is empty: requests answer 402 until it is credited. This gateway takes no payments
            yet, so ask its operator to credit your deposit code <code>{session.record.depositCode}</code>.
          </p>
        )
      ) : alert && summary.available < alert.thresholdMicrounits ? (
        <p className="dash-alert dash-alert--warn" role="status" data-testid="low-balance-banner">
          Your balance is below your alert threshold of {formatUsd(alert.thresholdMicrounits)}.{" "}
          {canFund ? (
            <>
              <Link href="/dashboard/fund">Add funds</Link> or{" "}
              <Link href="/dashboard/billing">turn on auto top-up</Link>.
            </>
          ) : (
            <>Ask the operator to credit your deposit code.</>
          )}
        </p>
      ) : null}
      <section className="dash-section" aria-labelledby="spend-title">
        <h2 id="spend-title">Spend</h2>
        <SpendChart days={lastUtcDays(chartDays, now)} rows={daily} />
      </section>
      <section className="dash-section" aria-labelledby="activity-title">
        <h2 id="activity-title">Recent activity</h2>
        <RequestsTable token={session.token} models={[...new Set(daily.map((row) => row.model))].sort()} />
      </section>
      <section className="dash-section" aria-labelledby="snippets-title">
        <h2 id="snippets-title">Use it</h2>
        <p className="dash-muted">
          Your base URLs carry the token: keep these snippets private. The API key the SDKs send is ignored.
        </p>
        <SnippetTabs snippets={buildSnippets(session.baseUrl, session.token)} />
      </section>
    </>
  );
}
