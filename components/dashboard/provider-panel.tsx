"use client";

import { type FormEvent, useCallback, useEffect, useState } from "react";
import { AgentCard } from "./agent-card";
import { BondCard } from "./bond-card";
import { EarningsTable } from "./earnings-table";
import { ErrorAlert } from "./error-alert";
import { formatUsd } from "./format";
import { PayoutsTable } from "./payouts-table";
import { earningsPerDay, hostTokenKey, loadProvider, type ProviderData } from "./provider-api";
import { ScrollRegion } from "./scroll-region";
import { StatList } from "./stat-cards";
import { TableHead } from "./table-head";
import { TrustCard } from "./trust-card";
import { WithdrawCard } from "./withdraw-card";

/** How often the open page re-reads the host: the agent's slots and the bond's arrival. */
const refreshEveryMs = 5_000;

/**
 * The provider page, the operator's cockpit: sign in with the host token that `pod-agent
 * enroll` printed (kept in this tab only), then the bond (posted from a wallet here), the
 * connected agent, the host's standing, earnings per request, withdrawals and payouts.
 */
export function ProviderPanel() {
  const [token, setToken] = useState<string | undefined>(undefined);
  const [data, setData] = useState<ProviderData | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [pasted, setPasted] = useState("");
  const [now, setNow] = useState(() => Date.now());

  const refresh = useCallback(async (hostToken: string) => {
    try {
      setData(await loadProvider(hostToken));
      setError(undefined);
      return true;
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "could not load the provider data");
      return false;
    }
  }, []);

  useEffect(() => {
    const kept = sessionStorage.getItem(hostTokenKey) ?? undefined;
    if (kept === undefined) return;
    setToken(kept);
    void refresh(kept);
  }, [refresh]);

  // Re-read while the page is open and visible: the agent's free slots change with every job.
  useEffect(() => {
    if (token === undefined) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState !== "visible") return;
      setNow(Date.now());
      void refresh(token);
    }, refreshEveryMs);
    return () => window.clearInterval(timer);
  }, [token, refresh]);

  async function signIn(event: FormEvent) {
    event.preventDefault();
    const candidate = pasted.trim();
    if (candidate === "") return;
    if (await refresh(candidate)) {
      sessionStorage.setItem(hostTokenKey, candidate);
      setToken(candidate);
      setPasted("");
    }
  }

  function signOut() {
    sessionStorage.removeItem(hostTokenKey);
    setToken(undefined);
    setData(undefined);
  }

  if (token === undefined || data === undefined) {
    return (
      <section className="dash-card" aria-labelledby="host-signin-title">
        <h2 id="host-signin-title">Sign in as a provider</h2>
        <p className="dash-muted">
          Paste the host token that <code>pod-agent enroll</code> (or <code>POST /v1/host/enroll</code>) gave
          you. It stays in this browser tab only and is sent in a header, never in a URL.
        </p>
        <form className="dash-form" onSubmit={(event) => void signIn(event)}>
          <label htmlFor="host-token" className="dash-label">
            Host token
          </label>
          <input
            id="host-token"
            className="dash-input dash-input--mono"
            type="password"
            autoComplete="off"
            value={pasted}
            onChange={(event) => setPasted(event.target.value)}
          />
          <button type="submit" className="dash-button dash-button--primary">
            Open provider dashboard
          </button>
        </form>
        <ErrorAlert message={error} />
      </section>
    );
  }

  return (
    <div className="dash-provider">
      <p className="dash-muted dash-provider__who">
        {data.profile.display_name} · provider <code>{data.profile.provider_id}</code>{" "}
        <button type="button" className="dash-button dash-button--quiet" onClick={() => void refresh(token)}>
          Refresh
        </button>
        <button type="button" className="dash-button dash-button--quiet" onClick={signOut}>
          Sign out
        </button>
      </p>
      <ProviderStats data={data} />
      <BondCard token={token} data={data} onChange={() => void refresh(token)} />
      <AgentCard agent={data.agent} status={data.profile.status} now={now} />
      <TrustCard
        reputation={data.profile.reputation}
        events={data.profile.trust_events}
        status={data.profile.status}
        agent={data.agent.state}
      />
      {data.listings.length === 0 ? null : <ListingsCard data={data} />}
      <EarningsChart data={data} />
      <EarningsTable
        token={token}
        first={data.transactions}
        firstNextBefore={data.nextBefore}
        maturitySeconds={data.balance.limits.maturity_seconds}
        now={now}
      />
      <WithdrawCard token={token} data={data} onDone={() => void refresh(token)} />
      <PayoutsTable payouts={data.balance.payouts} />
    </div>
  );
}

function ProviderStats({ data }: { data: ProviderData }) {
  const money = (microunits: number) => formatUsd(microunits, { precise: true });
  const cards = [
    // An enrolled host whose agent is gone is not served to anyone: the card says so, not just "active".
    {
      id: "status",
      label: "Status",
      value:
        data.profile.status === "active" && data.agent.state !== "connected"
          ? `active, agent ${data.agent.state}`
          : data.profile.status,
    },
    { id: "balance", label: "Earnings balance", value: money(data.balance.usdc_balance) },
    { id: "maturing", label: "Maturing", value: money(data.balance.maturing_usdc_balance) },
    {
      id: "withdrawable",
      label: "Withdrawable now",
      value: money(data.balance.withdrawable_usdc_balance),
    },
    {
      id: "pending",
      label: "Withdrawals in progress",
      value: money(data.balance.pending_withdrawals_usdc),
    },
  ];
  return <StatList cards={cards} />;
}

function ListingsCard({ data }: { data: ProviderData }) {
  return (
    <section className="dash-card" aria-labelledby="listings-title">
      <h2 id="listings-title">Relay listings</h2>
      <ScrollRegion label="Relay listings">
        <table className="dash-table">
          <TableHead columns={["Model", "Upstream", "Input / 1M", "Output / 1M", "Enabled"]} />
          <tbody>
            {data.listings.map((listing) => (
              <tr key={listing.model}>
                <td>{listing.model}</td>
                <td>{listing.upstream}</td>
                <td>{formatUsd(listing.input_per_1m, { precise: true })}</td>
                <td>{formatUsd(listing.output_per_1m, { precise: true })}</td>
                <td>{listing.enabled ? "yes" : "no"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </section>
  );
}

function EarningsChart({ data }: { data: ProviderData }) {
  const days = earningsPerDay(data.transactions, 14);
  const top = Math.max(1, ...days.map((entry) => entry.microunits));
  return (
    <section className="dash-card" aria-labelledby="earnings-title">
      <h2 id="earnings-title">Earnings, last 14 days</h2>
      <ol className="dash-provider-bars">
        {days.map((entry) => (
          <li key={entry.day} title={`${entry.day}: ${formatUsd(entry.microunits, { precise: true })}`}>
            <span
              className="dash-provider-bars__bar"
              style={{ height: `${(entry.microunits / top) * 100}%` }}
            />
            <span className="dash-provider-bars__label">{entry.day.slice(8)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
