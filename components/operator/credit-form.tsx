"use client";

import { creditResponseSchema } from "@pod-gateway/contracts/operator-console";
import { useState } from "react";
import { formatUsd } from "@/components/dashboard/format";
import { usdToMicrounits } from "@/components/dashboard/usd-input";
import { ConsoleForm, Field } from "./console-form";

/** Credits a token with a reason; the ledger posts it from the admin-credits account. */
export function CreditForm() {
  const [token, setToken] = useState("");
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  return (
    <ConsoleForm
      label="Credit a token"
      submit="Credit"
      build={() => {
        const microunits = usdToMicrounits(amount);
        if (microunits === undefined || microunits <= 0n) return "The amount is dollars, such as 5 or 0.25.";
        if (reason.trim() === "") return "Say why: the reason is kept in the ledger.";
        return {
          path: "credits",
          body: { api_token: token.trim(), amount_microunits: microunits.toString(), reason: reason.trim() },
        };
      }}
      said={(body) => {
        const answer = creditResponseSchema.safeParse(body);
        if (!answer.success) return "Credited.";
        return answer.data.duplicate
          ? "Already credited (the same credit was sent before)."
          : `Credited ${formatUsd(answer.data.amount_microunits)}; the balance is now ${formatUsd(answer.data.usdc_balance)}.`;
      }}
    >
      <Field id="credit-token" label="The person's API token" value={token} onChange={setToken} mono />
      <Field id="credit-amount" label="Amount (USD)" value={amount} onChange={setAmount} />
      <Field id="credit-reason" label="Reason (kept in the ledger)" value={reason} onChange={setReason} />
    </ConsoleForm>
  );
}
