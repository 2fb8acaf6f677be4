"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, useState } from "react";
import { ErrorAlert } from "@/components/dashboard/error-alert";
import { type ActionResult, consoleAction } from "./console-action";

/**
 * A console form: its fields, one submit button, and what the action answered. `build` turns
 * the fields into the action (or a message when they do not make one); `said` words a success.
 */
export function ConsoleForm({
  label,
  submit,
  build,
  said,
  children,
  danger = false,
}: {
  label: string;
  submit: string;
  build(): { path: string; method?: "POST" | "PUT"; body: unknown } | string;
  said(body: unknown): string;
  children: ReactNode;
  danger?: boolean;
}) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setDone(undefined);
    const action = build();
    if (typeof action === "string") {
      setError(action);
      return;
    }
    setBusy(true);
    setError(undefined);
    const result: ActionResult = await consoleAction(action.path, action);
    setBusy(false);
    if (!result.ok) {
      setError(result.message);
      return;
    }
    setDone(said(result.body));
    router.refresh();
  }

  return (
    <form className="dash-form" aria-label={label} onSubmit={(event) => void onSubmit(event)}>
      {children}
      <button
        type="submit"
        className={`dash-button ${danger ? "dash-button--danger" : "dash-button--primary"}`}
        disabled={busy}
      >
        {submit}
      </button>
      {done === undefined ? null : (
        <p className="dash-alert dash-alert--ok" role="status">
          {done}
        </p>
      )}
      <ErrorAlert message={error} />
    </form>
  );
}

/** A labelled text field of a console form. */
export function Field({
  id,
  label,
  value,
  onChange,
  mono = false,
  multiline = false,
}: {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  mono?: boolean;
  multiline?: boolean;
}) {
  return (
    <>
      <label htmlFor={id} className="dash-label">
        {label}
      </label>
      {multiline ? (
        <textarea
          id={id}
          className="dash-input"
          rows={3}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : (
        <input
          id={id}
          className={`dash-input${mono ? " dash-input--mono" : ""}`}
          autoComplete="off"
          spellCheck={false}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </>
  );
}
