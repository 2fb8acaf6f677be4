"use client";

import { type FormEvent, useState } from "react";
import { ErrorAlert } from "./error-alert";
import { errorMessage } from "./funding-options";

interface MethodSetup {
  enabled: boolean;
  missing: string[];
  docs: string;
}

const names = { card: "Card (Stripe)", solana: "USDC on Solana", base: "USDC on Base" } as const;

/**
 * The funding page when the gateway offers no way in: the customer learns how to get credit
 * anyway (the operator credits the deposit code); the operator, with the admin token typed
 * here (sent once, never stored), sees which settings to set. No setting name is shown to anyone else.
 */
export function FundingNotSetUp({ depositCode }: { depositCode: string }) {
  const [adminToken, setAdminToken] = useState("");
  const [setup, setSetup] = useState<Record<keyof typeof names, MethodSetup> | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  async function check(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    const response = await fetch("/v1/admin/funding", {
      headers: { authorization: `Bearer ${adminToken.trim()}` },
      cache: "no-store",
    });
    setAdminToken("");
    if (!response.ok) {
      setError(await errorMessage(response));
      return;
    }
    setSetup((await response.json()) as Record<keyof typeof names, MethodSetup>);
  }

  return (
    <section className="dash-card" aria-labelledby="no-funding-title" data-testid="funding-not-set-up">
      <h2 id="no-funding-title">Payments are not set up on this gateway yet</h2>
      <p>
        You can still get credit: the gateway's operator can add it to your token directly. Give them your
        deposit code <code>{depositCode}</code> (it identifies your token without giving it away).
      </p>
      <details className="dash-operator">
        <summary>I run this gateway</summary>
        {setup === undefined ? (
          <form className="dash-form" onSubmit={(event) => void check(event)}>
            <label className="dash-field dash-field--wide">
              <span className="dash-label">Admin token (sent once to this gateway, not stored)</span>
              <input
                className="dash-input dash-input--mono"
                type="password"
                autoComplete="off"
                value={adminToken}
                onChange={(event) => setAdminToken(event.target.value)}
              />
            </label>
            <button type="submit" className="dash-button" disabled={adminToken.trim() === ""}>
              Show what to set
            </button>
          </form>
        ) : (
          <ul className="dash-setup-list">
            {(Object.keys(names) as (keyof typeof names)[]).map((method) => (
              <li key={method}>
                <strong>{names[method]}</strong>:{" "}
                {setup[method].enabled ? (
                  "on"
                ) : (
                  <>
                    set{" "}
                    {setup[method].missing.map((name, index) => (
                      <span key={name}>
                        {index > 0 ? ", " : ""}
                        <code>{name}</code>
                      </span>
                    ))}{" "}
                    and restart (<a href={setup[method].docs}>how</a>).
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
        <ErrorAlert message={error} />
      </details>
    </section>
  );
}
