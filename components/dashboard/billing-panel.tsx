"use client";

import type {
  AutoTopUpResponse,
  AutoTopUpView,
  BalanceAlertResponse,
  BalanceAlertView,
  CardSetupResponse,
} from "@pod-gateway/contracts/balance-watch";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { ErrorAlert } from "./error-alert";
import { formatUsd } from "./format";
import { ScrollRegion } from "./scroll-region";
import { TableHead } from "./table-head";
import { UsdField } from "./usd-field";
import { usdToMicrounits } from "./usd-input";

async function readError(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  return body.error?.message ?? `HTTP ${response.status}`;
}

const plainUsd = (microunits: number) => formatUsd(microunits).replace(/^\$/, "").replace(/,/g, "");
const centsText = (cents: number) => plainUsd(cents * 10_000);
const cents = (text: string) => {
  const microunits = usdToMicrounits(text);
  return microunits === undefined || microunits % 10_000n !== 0n ? undefined : Number(microunits / 10_000n);
};

/** Low-balance alert and auto top-up by card, for the account's token. */
export function BillingPanel({
  token,
  cardNotice,
}: {
  token: string;
  cardNotice: "saved" | "canceled" | undefined;
}) {
  // The "card saved" note asks the person to turn auto top-up on: once it is on, it has said its piece.
  const [autoTopUpOn, setAutoTopUpOn] = useState(false);
  return (
    <div className="dash-billing">
      {cardNotice === "saved" && !autoTopUpOn ? (
        <p className="dash-alert dash-alert--ok" role="status">
          Card saved with Stripe. Turn auto top-up on below.
        </p>
      ) : cardNotice === "canceled" ? (
        <p className="dash-alert dash-alert--info">No card was saved.</p>
      ) : null}
      <AutoTopUpCard token={token} onEnabled={setAutoTopUpOn} />
      <AlertCard token={token} />
    </div>
  );
}

function AlertCard({ token }: { token: string }) {
  const [alert, setAlert] = useState<BalanceAlertView | null | undefined>(undefined);
  const [threshold, setThreshold] = useState("5");
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const [showSecret, setShowSecret] = useState(false);

  const load = useCallback(async () => {
    const response = await fetch(`/proxy/${token}/balance-alert`, { cache: "no-store" });
    if (!response.ok) {
      setError(await readError(response));
      return;
    }
    const body = (await response.json()) as BalanceAlertResponse;
    setAlert(body.alert);
    if (body.alert) {
      setThreshold(plainUsd(body.alert.threshold_microunits));
      setUrl(body.alert.webhook_url ?? "");
    }
  }, [token]);

  useEffect(() => {
    void load();
  }, [load]);

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const microunits = usdToMicrounits(threshold);
    if (microunits === undefined || microunits <= 0n) {
      setError("The threshold is an amount in dollars, such as 5 or 0.50.");
      return;
    }
    setError(undefined);
    const response = await fetch(`/proxy/${token}/balance-alert`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ threshold_microunits: Number(microunits), webhook_url: url.trim() || null }),
    });
    if (!response.ok) {
      setError(await readError(response));
      return;
    }
    setAlert(((await response.json()) as BalanceAlertResponse).alert);
    setSaved(true);
  }

  async function remove() {
    const response = await fetch(`/proxy/${token}/balance-alert`, { method: "DELETE" });
    if (response.ok) {
      setAlert(null);
      setUrl("");
    } else setError(await readError(response));
  }

  return (
    <section className="dash-card" aria-labelledby="alert-title">
      <h2 id="alert-title">Low-balance alert</h2>
      <p className="dash-muted">
        Below the threshold, the dashboard shows a banner and, with a webhook URL, one signed POST is sent
        (again only after the balance was back above it).
      </p>
      <form className="dash-form dash-stack" onSubmit={(event) => void save(event)}>
        <UsdField label="Alert below (USD)" value={threshold} onChange={setThreshold} />
        <label className="dash-field dash-field--wide">
          <span className="dash-label">Webhook URL (optional, https)</span>
          <input
            className="dash-input"
            type="url"
            value={url}
            placeholder="https://example.com/hooks/pod"
            onChange={(event) => setUrl(event.target.value)}
          />
        </label>
        <button type="submit" className="dash-button dash-button--primary">
          {alert ? "Save alert" : "Set alert"}
        </button>
        {alert ? (
          <button type="button" className="dash-button" onClick={() => void remove()}>
            Remove
          </button>
        ) : null}
      </form>
      {saved ? (
        <p className="dash-alert dash-alert--ok" role="status">
          Alert saved.
        </p>
      ) : null}
      {alert ? (
        <div className="dash-muted dash-wrap" data-testid="alert-state">
          <p>
            {alert.below
              ? "Your balance is below the threshold now."
              : "Your balance is above the threshold."}
            {alert.last_sent_at
              ? ` Last alert ${alert.last_sent_at.slice(0, 16).replace("T", " ")} UTC: ${alert.last_result ?? "sent"}.`
              : ""}
          </p>
          {alert.webhook_url ? (
            <p>
              Signing secret (verify the <code>Pod-Signature</code> header):{" "}
              {showSecret ? (
                <code>{alert.webhook_secret}</code>
              ) : (
                <button
                  type="button"
                  className="dash-button dash-button--quiet"
                  onClick={() => setShowSecret(true)}
                >
                  Show
                </button>
              )}
            </p>
          ) : null}
        </div>
      ) : null}
      <ErrorAlert message={error} />
    </section>
  );
}

function AutoTopUpCard({ token, onEnabled }: { token: string; onEnabled: (enabled: boolean) => void }) {
  const [view, setView] = useState<AutoTopUpView | undefined>(undefined);
  const [enabled, setEnabled] = useState(false);
  const [threshold, setThreshold] = useState("5");
  const [amount, setAmount] = useState("20");
  const [cap, setCap] = useState("100");
  const [error, setError] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  const adopt = useCallback(
    (next: AutoTopUpView) => {
      setView(next);
      setEnabled(next.enabled);
      onEnabled(next.enabled);
      setThreshold(plainUsd(next.threshold_microunits));
      setAmount(centsText(next.amount_cents));
      setCap(centsText(next.monthly_cap_cents));
    },
    [onEnabled],
  );

  const load = useCallback(async () => {
    const response = await fetch(`/proxy/${token}/auto-top-up`, { cache: "no-store" });
    if (!response.ok) {
      setError(await readError(response));
      return;
    }
    adopt(((await response.json()) as AutoTopUpResponse).auto_top_up);
  }, [token, adopt]);

  useEffect(() => {
    void load();
  }, [load]);

  async function saveCard() {
    setBusy(true);
    setError(undefined);
    const response = await fetch(`/proxy/${token}/auto-top-up/card`, { method: "POST" });
    if (!response.ok) {
      setError(await readError(response));
      setBusy(false);
      return;
    }
    window.location.assign(((await response.json()) as CardSetupResponse).checkout_url);
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const thresholdMicrounits = usdToMicrounits(threshold);
    const amountCents = cents(amount);
    const capCents = cents(cap);
    if (
      thresholdMicrounits === undefined ||
      thresholdMicrounits <= 0n ||
      amountCents === undefined ||
      capCents === undefined
    ) {
      setError("Amounts are in dollars, such as 5 or 20.50 (whole cents for the card).");
      return;
    }
    setError(undefined);
    setBusy(true);
    const response = await fetch(`/proxy/${token}/auto-top-up`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        enabled,
        threshold_microunits: Number(thresholdMicrounits),
        amount_cents: amountCents,
        monthly_cap_cents: capCents,
      }),
    });
    setBusy(false);
    if (!response.ok) {
      setError(await readError(response));
      return;
    }
    adopt(((await response.json()) as AutoTopUpResponse).auto_top_up);
    setSaved(true);
  }

  if (view === undefined)
    return (
      <section className="dash-card" aria-labelledby="topup-title">
        <h2 id="topup-title">Auto top-up</h2>
        <p className="dash-muted">{error ?? "Loading…"}</p>
      </section>
    );
  return (
    <section className="dash-card" aria-labelledby="topup-title" data-enabled={view.enabled}>
      <h2 id="topup-title">Auto top-up</h2>
      {!view.available ? (
        <p className="dash-muted">
          Card payments are not offered on this gateway, so auto top-up is unavailable.
        </p>
      ) : (
        <>
          <p className="dash-muted">
            When your balance falls below the threshold, your saved card is charged once (Stripe), at most the
            monthly cap per UTC month. Off until you turn it on.
          </p>
          <p>
            {view.card ? (
              <>
                Saved card:{" "}
                <strong data-testid="saved-card">{`${view.card.brand} ····${view.card.last4}`}</strong>{" "}
                <button
                  type="button"
                  className="dash-button dash-button--quiet"
                  disabled={busy}
                  onClick={() => void saveCard()}
                >
                  Replace card
                </button>
              </>
            ) : (
              <button
                type="button"
                className="dash-button dash-button--primary"
                disabled={busy}
                onClick={() => void saveCard()}
              >
                Save a card with Stripe
              </button>
            )}
          </p>
          {view.last_error ? <p className="dash-alert dash-alert--warn">{view.last_error}</p> : null}
          <form className="dash-form dash-stack" onSubmit={(event) => void save(event)}>
            <label className="dash-check">
              <input
                type="checkbox"
                checked={enabled}
                disabled={view.card === null}
                onChange={(event) => setEnabled(event.target.checked)}
              />{" "}
              Top up automatically
            </label>
            <UsdField label="When the balance is below (USD)" value={threshold} onChange={setThreshold} />
            <UsdField label="Charge the card (USD)" value={amount} onChange={setAmount} />
            <UsdField label="At most per month (USD)" value={cap} onChange={setCap} />
            <button
              type="submit"
              className="dash-button dash-button--primary"
              disabled={busy || view.card === null}
            >
              Save auto top-up
            </button>
          </form>
          {saved ? (
            <p className="dash-alert dash-alert--ok" role="status">
              Auto top-up {view.enabled ? "is on" : "is off"}.
            </p>
          ) : null}
          <p className="dash-muted">
            Charged this month: {formatUsd(view.charged_this_month_cents * 10_000)} of{" "}
            {formatUsd(view.monthly_cap_cents * 10_000)}.
          </p>
          {view.charges.length === 0 ? null : (
            <ScrollRegion label="Auto top-up charges">
              <table className="dash-table dash-charges-table" data-testid="top-up-charges">
                <TableHead columns={["Time (UTC)", "Charge", { numeric: "Amount" }]} />
                <tbody>
                  {view.charges.map((charge) => (
                    <tr key={charge.id} data-status={charge.status}>
                      <td className="dash-table__time">{charge.created_at.replace("T", " ").slice(0, 19)}</td>
                      <td>
                        {charge.status === "succeeded"
                          ? "Paid"
                          : charge.status === "pending"
                            ? "In progress"
                            : "Failed"}
                        {charge.failure ? <span className="dash-muted"> · {charge.failure}</span> : null}
                        {charge.receipt_url ? (
                          <>
                            {" · "}
                            <a href={charge.receipt_url} target="_blank" rel="noreferrer">
                              Receipt
                            </a>
                          </>
                        ) : null}
                      </td>
                      <td className="dash-table__num">{formatUsd(charge.amount_cents * 10_000)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
        </>
      )}
      <ErrorAlert message={error} />
    </section>
  );
}
