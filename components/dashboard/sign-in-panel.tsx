"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useState } from "react";
import { ErrorAlert } from "./error-alert";
import { SecretRow } from "./secret-row";
import {
  forgetToken,
  isTokenShaped,
  rememberedToken,
  rememberToken,
  signIn,
  tokenFromHash,
} from "./token-store";

type Stage =
  | { kind: "restoring" }
  | { kind: "idle" }
  | { kind: "registering" }
  | { kind: "created"; token: string }
  | { kind: "signing-in" };

/**
 * Signed-out dashboard: create a token in one click (shown once, with a warning to keep it),
 * or paste one from another device. A token remembered on this device signs in silently: the
 * cookie is SameSite=Strict, so it is not sent when arriving from another site (Stripe's return).
 */
export function SignInPanel() {
  const router = useRouter();
  const [stage, setStage] = useState<Stage>({ kind: "restoring" });
  const [error, setError] = useState<string | undefined>(undefined);
  const [pasted, setPasted] = useState("");

  useEffect(() => {
    // A #token= link is handled by SessionKeeper; wait for it instead of offering sign-up.
    if (tokenFromHash(window.location.hash) !== undefined) return;
    const remembered = rememberedToken();
    if (remembered === undefined) {
      setStage({ kind: "idle" });
      return;
    }
    void signIn(remembered).then((result) => {
      if (result.ok) router.refresh();
      else {
        if (result.unknown) forgetToken();
        setStage({ kind: "idle" });
      }
    });
  }, [router]);

  async function register() {
    setError(undefined);
    setStage({ kind: "registering" });
    try {
      const response = await fetch("/v1/register", { method: "POST" });
      const body = (await response.json()) as { api_token?: string; error?: { message?: string } };
      if (!response.ok || body.api_token === undefined)
        throw new Error(body.error?.message ?? `HTTP ${response.status}`);
      const token = body.api_token;
      rememberToken(token);
      const result = await signIn(token);
      if (!result.ok) throw new Error(result.message);
      setStage({ kind: "created", token });
    } catch (caught) {
      setError(`Could not create a token: ${caught instanceof Error ? caught.message : "unknown error"}`);
      setStage({ kind: "idle" });
    }
  }

  async function submitPasted(event: FormEvent) {
    event.preventDefault();
    const token = pasted.trim();
    if (!isTokenShaped(token)) {
      setError("A token looks like 8-4-4-4-12 hexadecimal characters (a UUID).");
      return;
    }
    setError(undefined);
    setStage({ kind: "signing-in" });
    const result = await signIn(token);
    if (!result.ok) {
      setError(result.message);
      setStage({ kind: "idle" });
      return;
    }
    rememberToken(token);
    router.refresh();
  }

  if (stage.kind === "restoring")
    return (
      <p className="dash-muted" aria-live="polite">
        Signing you in…
      </p>
    );

  if (stage.kind === "created") {
    return (
      <section className="dash-card dash-token-once" aria-labelledby="token-once-title">
        <h2 id="token-once-title">Your API token</h2>
        <p className="dash-alert dash-alert--warn">
          <strong>Keep it somewhere safe now.</strong> The token is the only key to your balance: whoever has
          it can spend it. The gateway stores only a hash and cannot show it to you again.
        </p>
        <SecretRow secret={stage.token} label="Your API token" copyLabel="Copy token" />
        <p className="dash-muted">
          This browser remembers it, so the dashboard opens signed in here. On another device, paste it on
          this page.
        </p>
        <button type="button" className="dash-button dash-button--primary" onClick={() => router.refresh()}>
          I saved it, open my dashboard
        </button>
      </section>
    );
  }

  const busy = stage.kind === "registering" || stage.kind === "signing-in";
  return (
    <div className="dash-signin">
      <section className="dash-card" aria-labelledby="signup-title">
        <h2 id="signup-title">New here?</h2>
        <p className="dash-muted">
          Create a prepaid API token in one click. No e-mail, no password: the token is your account.
        </p>
        <button type="button" className="dash-button dash-button--primary" onClick={register} disabled={busy}>
          {stage.kind === "registering" ? "Creating…" : "Create a token"}
        </button>
      </section>
      <section className="dash-card" aria-labelledby="signin-title">
        <h2 id="signin-title">Have a token?</h2>
        <form onSubmit={submitPasted} className="dash-form">
          <label htmlFor="paste-token" className="dash-label">
            Paste your API token
          </label>
          <input
            id="paste-token"
            className="dash-input dash-input--mono"
            autoComplete="off"
            spellCheck={false}
            placeholder="xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
            value={pasted}
            onChange={(event) => setPasted(event.target.value)}
          />
          <button type="submit" className="dash-button" disabled={busy}>
            {stage.kind === "signing-in" ? "Signing in…" : "Sign in"}
          </button>
        </form>
      </section>
      <ErrorAlert message={error} />
    </div>
  );
}
