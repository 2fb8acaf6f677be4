"use client";

import type { CardOptions, CardQuote } from "@pod-gateway/contracts/dashboard-api";
import { useEffect, useState } from "react";
import { ErrorAlert } from "./error-alert";
import { errorMessage, formatDollars } from "./funding-options";

/**
 * Fund by card: a preset or a custom amount within the gateway's limits, the fee shown before
 * paying, then Stripe Checkout. The credit lands when Stripe's webhook reaches the gateway.
 */
export function CardFunding({
  token,
  options,
  canceled,
}: {
  token: string;
  options: CardOptions;
  canceled: boolean;
}) {
  const [amount, setAmount] = useState<number>(
    options.presets_usd[1] ?? options.presets_usd[0] ?? options.min_usd,
  );
  const [custom, setCustom] = useState("");
  const [quote, setQuote] = useState<CardQuote | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [paying, setPaying] = useState(false);

  const customValue = custom.trim() === "" ? undefined : Number(custom);
  const chosen = customValue ?? amount;
  const inRange = Number.isFinite(chosen) && chosen >= options.min_usd && chosen <= options.max_usd;

  useEffect(() => {
    setQuote(undefined);
    if (!inRange) return;
    const known = options.quotes.find((entry) => entry.credit_usd === chosen);
    if (known) {
      setQuote(known);
      return;
    }
    // A custom amount: ask the gateway, which rounds the fee exactly as the charge will.
    const timer = window.setTimeout(() => {
      fetch(`/proxy/${token}/fund/card/quote?amount_usd=${encodeURIComponent(String(chosen))}`, {
        cache: "no-store",
      })
        .then(async (response) => {
          if (!response.ok) throw new Error(await errorMessage(response));
          setQuote((await response.json()) as CardQuote);
        })
        .catch((caught: unknown) =>
          setError(caught instanceof Error ? caught.message : "could not price that amount"),
        );
    }, 250);
    return () => window.clearTimeout(timer);
  }, [chosen, inRange, options.quotes, token]);

  async function pay() {
    setError(undefined);
    setPaying(true);
    try {
      const response = await fetch(`/proxy/${token}/fund/card`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount_usd: chosen }),
      });
      if (!response.ok) throw new Error(await errorMessage(response));
      const body = (await response.json()) as { checkout_url: string };
      window.location.assign(body.checkout_url);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "card payment could not start");
      setPaying(false);
    }
  }

  if (!options.enabled) {
    return (
      <section className="dash-card" aria-labelledby="card-title">
        <h2 id="card-title">Card</h2>
        <p className="dash-muted">{options.reason ?? "Card funding is off on this gateway."}</p>
      </section>
    );
  }

  return (
    <section className="dash-card" aria-labelledby="card-title">
      <h2 id="card-title">Card</h2>
      <p className="dash-muted">Pay with Stripe Checkout; the balance is credited in US dollars of USDC.</p>
      {canceled ? (
        <p className="dash-alert dash-alert--info" role="status">
          Checkout was canceled; nothing was charged.
        </p>
      ) : null}
      <fieldset className="dash-presets" aria-label="Amount">
        {options.presets_usd.map((preset) => (
          <button
            key={preset}
            type="button"
            className="dash-button"
            aria-pressed={customValue === undefined && amount === preset}
            onClick={() => {
              setCustom("");
              setAmount(preset);
            }}
          >
            ${preset}
          </button>
        ))}
      </fieldset>
      <div className="dash-form">
        <label htmlFor="card-custom" className="dash-label">
          Or another amount (${options.min_usd} to ${options.max_usd})
        </label>
        <input
          id="card-custom"
          className="dash-input"
          type="number"
          inputMode="decimal"
          min={options.min_usd}
          max={options.max_usd}
          step="1"
          placeholder={`e.g. ${options.min_usd * 3}`}
          value={custom}
          onChange={(event) => setCustom(event.target.value)}
          aria-invalid={customValue !== undefined && !inRange}
          aria-describedby="card-fee-note"
        />
      </div>
      {customValue !== undefined && !inRange ? (
        <p className="dash-alert dash-alert--error" role="alert">
          Choose an amount from ${options.min_usd} to ${options.max_usd}.
        </p>
      ) : null}
      <dl className="dash-breakdown" aria-live="polite" data-testid="card-breakdown">
        <dt>Credited to your balance</dt>
        <dd>{quote ? formatDollars(quote.credit_usd) : "…"}</dd>
        <dt>Card fee</dt>
        <dd>{quote ? formatDollars(quote.fee_usd) : "…"}</dd>
        <dt className="dash-breakdown__total">You pay</dt>
        <dd className="dash-breakdown__total">{quote ? formatDollars(quote.total_usd) : "…"}</dd>
      </dl>
      <p id="card-fee-note" className="dash-muted">
        {options.fee.description}
      </p>
      <button
        type="button"
        className="dash-button dash-button--primary"
        disabled={!quote || paying}
        onClick={pay}
      >
        {paying
          ? "Opening Checkout…"
          : quote
            ? `Pay ${formatDollars(quote.total_usd)} by card`
            : "Pay by card"}
      </button>
      <ErrorAlert message={error} />
    </section>
  );
}
