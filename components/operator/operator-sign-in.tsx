"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { ErrorAlert } from "@/components/dashboard/error-alert";

/** The console's sign-in: the admin token (sent once, in the body) and the name actions are logged under. */
export function OperatorSignIn() {
  const router = useRouter();
  const [token, setToken] = useState("");
  const [operator, setOperator] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const response = await fetch("/dashboard/admin/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ admin_token: token, operator }),
        credentials: "same-origin",
      });
      if (response.ok) {
        setToken("");
        router.refresh();
        return;
      }
      const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
      setError(body.error?.message ?? `sign-in failed (HTTP ${response.status})`);
    } catch {
      setError("the gateway could not be reached");
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="dash-card" aria-labelledby="operator-signin-title">
      <h2 id="operator-signin-title">Operator sign-in</h2>
      <p className="dash-muted">
        The console is for whoever runs this gateway: it needs the gateway's <code>ADMIN_TOKEN</code>. The
        browser keeps a signed session for 12 hours, never the token.
      </p>
      <form onSubmit={(event) => void submit(event)} className="dash-form">
        <label htmlFor="operator-name" className="dash-label">
          Your name (every action is logged under it)
        </label>
        <input
          id="operator-name"
          className="dash-input"
          autoComplete="name"
          value={operator}
          onChange={(event) => setOperator(event.target.value)}
        />
        <label htmlFor="admin-token" className="dash-label">
          Admin token
        </label>
        <input
          id="admin-token"
          type="password"
          className="dash-input dash-input--mono"
          autoComplete="off"
          value={token}
          onChange={(event) => setToken(event.target.value)}
        />
        <button
          type="submit"
          className="dash-button dash-button--primary"
          disabled={busy || token.trim() === "" || operator.trim() === ""}
        >
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <ErrorAlert message={error} />
    </section>
  );
}
