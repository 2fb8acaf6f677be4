"use client";

import { slashResponseSchema } from "@pod-gateway/contracts/operator-console";
import { useState } from "react";
import { formatUsd } from "@/components/dashboard/format";
import { ConsoleForm, Field } from "./console-form";

/** Slashes a host: suspends it and pays its immature earnings and bond back to its callers. */
export function SlashForm({ hostId }: { hostId: string }) {
  const [reason, setReason] = useState("");
  return (
    <ConsoleForm
      label="Slash this host"
      submit="Slash host"
      danger
      build={() => {
        if (reason.trim() === "") return "Say why: the reason is kept with the slash and in the ledger.";
        if (!window.confirm("Slash this host? It is suspended and its bond goes to the callers it served."))
          return "Not slashed.";
        return { path: `hosts/${hostId}/slash`, body: { reason: reason.trim() } };
      }}
      said={(body) => {
        const answer = slashResponseSchema.safeParse(body);
        if (!answer.success) return "Slashed.";
        const { refunded_microunits, callers_refunded, remainder_microunits } = answer.data;
        return `Slashed: ${formatUsd(refunded_microunits)} refunded to ${callers_refunded} caller(s), ${formatUsd(remainder_microunits)} to the treasury.`;
      }}
    >
      <Field
        id="slash-reason"
        label="Reason (kept with the slash)"
        value={reason}
        onChange={setReason}
        multiline
      />
    </ConsoleForm>
  );
}
