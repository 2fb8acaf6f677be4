"use client";

import { type FormEvent, useCallback, useEffect, useState } from "react";
import { formatUsd } from "./format";
import {
  earningsPerDay,
  type HostPayout,
  hostTokenKey,
  loadProvider,
  type ProviderData,
  requestWithdrawal,
} from "./provider-api";
import { TrustCard } from "./trust-card";

/**
 * The provider page: sign in with the host token from `pod-agent enroll` (kept in this tab
 * only), then bond status, listings, earnings per day and a withdrawal form.
 */
export function ProviderPanel() {
  const [token, setToken] = useState<string | undefined>(undefined);
  const [data, setData] = useState<ProviderData | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [pasted, setPasted] = useState("");

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
        {error === undefined ? null : (
          <p className="dash-alert dash-alert--error" role="alert">
            {error}
          </p>
        )}
      </section>
    );
  }

  return (
    <div className="dash-provider">
      <p className="dash-muted">
        {data.profile.display_name} · provider <code>{data.profile.provider_id}</code>{" "}
        <button type="button" className="dash-button dash-button--quiet" onClick={signOut}>
          Sign out
        </button>
      </p>
      <ProviderStats data={data} />
      <BondCard data={data} />
      <TrustCard reputation={data.profile.reputation} />
      <ListingsCard data={data} />
      <EarningsChart data={data} />
      <WithdrawCard token={token} data={data} onDone={() => void refresh(token)} />
    </div>
  );
}

function ProviderStats({ data }: { data: ProviderData }) {
  const cards = [
    { id: "status", label: "Status", value: data.profile.status },
    { id: "balance", label: "Earnings balance", value: formatUsd(data.balance.usdc_balance) },
    { id: "maturing", label: "Maturing", value: formatUsd(data.balance.maturing_usdc_balance) },
    {
      id: "withdrawable",
      label: "Withdrawable now",
      value: formatUsd(data.balance.withdrawable_usdc_balance),
    },
    {
      id: "pending",
      label: "Withdrawals in progress",
      value: formatUsd(data.balance.pending_withdrawals_usdc),
    },
  ];
  return (
    <dl className="dash-stats">
      {cards.map((card) => (
        <div className="dash-stat" key={card.id} data-stat={card.id}>
          <dt>{card.label}</dt>
          <dd>
            <span className="dash-stat__value">{card.value}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function BondCard({ data }: { data: ProviderData }) {
  const { bond, status } = data.profile;
  const missing = Math.max(0, bond.amount_microunits - bond.held_microunits);
  return (
    <section className="dash-card" aria-labelledby="bond-title">
      <h2 id="bond-title">Bond</h2>
      <p data-testid="bond-summary">
        {formatUsd(bond.held_microunits)} of {formatUsd(bond.amount_microunits)} received.{" "}
        {status === "active" ? "The host is active and can be routed to." : `Status: ${status}.`}
      </p>
      {status !== "pending" || missing === 0 ? null : bond.destination === null ? (
        <p className="dash-muted">
          This gateway takes no on-chain bonds: its operator activates hosts (bond code{" "}
          <code>{bond.deposit_code}</code>).
        </p>
      ) : (
        <p className="dash-muted">
          Send {formatUsd(missing).replace("$", "")} USDC on Solana to <code>{bond.destination}</code> with
          the memo <code>{bond.memo}</code>; the host activates when 50 USDC has arrived.
        </p>
      )}
    </section>
  );
}

function ListingsCard({ data }: { data: ProviderData }) {
  return (
    <section className="dash-card" aria-labelledby="listings-title">
      <h2 id="listings-title">Models and prices</h2>
      {data.listings.length === 0 ? (
        <p className="dash-muted">
          No relay listings. Models your agent serves are listed while it is connected (see{" "}
          <a href="/docs/providers/agent">the agent</a>).
        </p>
      ) : (
        <div className="dash-table-wrap">
          <table className="dash-table">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Upstream</th>
                <th scope="col">Input / 1M</th>
                <th scope="col">Output / 1M</th>
                <th scope="col">Enabled</th>
              </tr>
            </thead>
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
        </div>
      )}
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
          <li key={entry.day} title={`${entry.day}: ${formatUsd(entry.microunits)}`}>
            <span
              className="dash-provider-bars__bar"
              style={{ height: `${(entry.microunits / top) * 100}%` }}
            />
            <span className="dash-provider-bars__label">{entry.day.slice(5)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function WithdrawCard({ token, data, onDone }: { token: string; data: ProviderData; onDone: () => void }) {
  const [amount, setAmount] = useState("");
  const [destination, setDestination] = useState(data.profile.wallet);
  const [payout, setPayout] = useState<HostPayout | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setPayout(undefined);
    try {
      setPayout(
        await requestWithdrawal(token, {
          amountUsdc: amount.trim(),
          destination: destination.trim(),
          idempotencyKey: crypto.randomUUID(),
        }),
      );
      onDone();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "the withdrawal failed");
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="dash-card" aria-labelledby="withdraw-title">
      <h2 id="withdraw-title">Withdraw</h2>
      <p className="dash-muted">
        Paid in USDC on Solana by the gateway's payout worker. Withdrawable now:{" "}
        {formatUsd(data.balance.withdrawable_usdc_balance)}.
      </p>
      <form className="dash-form" onSubmit={(event) => void submit(event)}>
        <label htmlFor="withdraw-amount" className="dash-label">
          Amount (USDC)
        </label>
        <input
          id="withdraw-amount"
          className="dash-input"
          inputMode="decimal"
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
        />
        <label htmlFor="withdraw-destination" className="dash-label">
          Solana wallet
        </label>
        <input
          id="withdraw-destination"
          className="dash-input dash-input--mono"
          value={destination}
          onChange={(event) => setDestination(event.target.value)}
        />
        <button
          type="submit"
          className="dash-button dash-button--primary"
          disabled={busy || amount.trim() === ""}
        >
          Request withdrawal
        </button>
      </form>
      {payout === undefined ? null : (
        <p className="dash-alert dash-alert--ok" role="status" data-testid="payout-status">
          Withdrawal of {formatUsd(payout.amount_microunits)} {payout.status}.
        </p>
      )}
      {error === undefined ? null : (
        <p className="dash-alert dash-alert--error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
