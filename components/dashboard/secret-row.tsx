"use client";

import { useState } from "react";

/**
 * A secret shown once (a new token or API key): a read-only field that selects itself on focus,
 * so it can be copied by hand, and a button that copies it. Give it `key={secret}` where a new
 * secret can replace the one shown, so "Copied" is not carried over to it.
 */
export function SecretRow({
  secret,
  label,
  copyLabel,
}: {
  secret: string;
  label: string;
  copyLabel: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="dash-token-row">
      <input
        className="dash-input dash-input--mono"
        readOnly
        value={secret}
        aria-label={label}
        onFocus={(event) => event.currentTarget.select()}
      />
      <button
        type="button"
        className="dash-button"
        // Refused (no permission, no secure context): the secret stays selectable in the field.
        onClick={() =>
          void navigator.clipboard.writeText(secret).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? "Copied" : copyLabel}
      </button>
    </div>
  );
}
