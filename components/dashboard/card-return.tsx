"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { formatUsd } from "./format";
import { errorMessage } from "./funding-options";

interface SessionStatus {
  session_id: string;
  status: "open" | "credited" | "expired" | "parked" | "reversed";
  credit_microunits: number;
  usdc_balance: number;
}

const pollMs = 1500;
const giveUpMs = 5 * 60_000;

/** After Checkout: pending until Stripe's webhook credits the session, then the new balance. */
export function CardReturn({ token, sessionId }: { token: string; sessionId: string }) {
  const [status, setStatus] = useState<SessionStatus | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [timedOut, setTimedOut] = useState(false);

  useEffect(() => {
    let stopped = false;
    const started = Date.now();
    async function poll() {
      if (stopped) return;
      try {
        const response = await fetch(`/proxy/${token}/fund/card/${encodeURIComponent(sessionId)}`, {
          cache: "no-store",
        });
        if (!response.ok) throw new Error(await errorMessage(response));
        const body = (await response.json()) as SessionStatus;
        setStatus(body);
        setError(undefined);
        if (body.status !== "open") return;
      } catch (caught) {
        setError(caught instanceof Error ? caught.message : "could not read the payment");
      }
      if (Date.now() - started > giveUpMs) {
        setTimedOut(true);
        return;
      }
      window.setTimeout(() => void poll(), pollMs);
    }
    void poll();
    return () => {
      stopped = true;
    };
  }, [token, sessionId]);

  const state = status?.status ?? "open";
  return (
    // The page's h1 already says "Card payment": this card names its state only to assistive tech.
    <section className="dash-card" aria-label="Payment status" aria-live="polite" data-status={state}>
      {state === "credited" && status ? (
        <>
          <p className="dash-alert dash-alert--ok">
            {formatUsd(status.credit_microunits)} was added to your balance.
          </p>
          <p>
            New balance: <strong data-testid="new-balance">{formatUsd(status.usdc_balance)}</strong>
          </p>
          <Link className="dash-button dash-button--primary" href="/dashboard">
            Back to the overview
          </Link>
        </>
      ) : state === "open" ? (
        <p className="dash-muted" role="status">
          {timedOut
            ? "Still waiting for Stripe to confirm the payment. The credit appears on the overview as soon as it lands; you can leave this page."
            : "Payment received by Stripe; waiting for the credit to land…"}
        </p>
      ) : (
        <p className="dash-alert dash-alert--warn">
          {state === "expired"
            ? "This Checkout session expired without a payment; nothing was charged."
            : state === "reversed"
              ? "This payment was refunded or disputed, and its credit reversed."
              : "This payment is held for review by the operator; it is not lost."}
        </p>
      )}
      {error === undefined ? null : <p className="dash-alert dash-alert--error">{error}</p>}
    </section>
  );
}
