"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ErrorAlert } from "@/components/dashboard/error-alert";
import { consoleAction } from "./console-action";

/**
 * One console action behind a button (suspend, activate, approve, refresh): asks first when
 * `confirm` is given, then reloads the page's data so it shows the result.
 */
export function ActionButton({
  path,
  label,
  confirm,
  danger = false,
  done,
}: {
  path: string;
  label: string;
  confirm?: string;
  danger?: boolean;
  /** What to say once it worked. */
  done: string;
}) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [said, setSaid] = useState<string | undefined>(undefined);

  async function run() {
    if (confirm !== undefined && !window.confirm(confirm)) return;
    setBusy(true);
    setError(undefined);
    const result = await consoleAction(path);
    setBusy(false);
    if (!result.ok) {
      setError(result.message);
      return;
    }
    setSaid(done);
    router.refresh();
  }

  return (
    <span className="dash-action">
      <button
        type="button"
        className={`dash-button${danger ? " dash-button--danger" : ""}`}
        disabled={busy}
        onClick={() => void run()}
      >
        {label}
      </button>
      {said === undefined ? null : (
        <span className="dash-muted" role="status">
          {said}
        </span>
      )}
      <ErrorAlert message={error} />
    </span>
  );
}
