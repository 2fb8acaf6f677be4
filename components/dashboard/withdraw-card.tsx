"use client";

import type { HostPayout } from "@pod-gateway/contracts/host-api";
import { type FormEvent, useState } from "react";
import { parseUsdc } from "./deposit-transaction";
import { ErrorAlert } from "./error-alert";
import { formatUsd } from "./format";
import { type ProviderData, requestWithdrawal } from "./provider-api";

/** A period as a person reads it: "7 days", "12 hours", "90 seconds". */
function period(seconds: number): string {
  if (seconds > 0 && seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? "" : "s"}`;
  if (seconds > 0 && seconds % 3_600 === 0) return `${seconds / 3_600} hour${seconds === 3_600 ? "" : "s"}`;
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

/**
 * Why this amount cannot be withdrawn now, checked before it is sent (the gateway checks again):
 * the minimum, what has matured, and a frozen host.
 */
function refusal(data: ProviderData, amount: bigint | undefined): string | undefined {
  const { balance } = data;
  const money = (microunits: number | bigint) => formatUsd(microunits, { precise: true });
  if (balance.frozen) return "Withdrawals are frozen while the host is suspended.";
  if (amount === undefined) return "Enter an amount in USDC, such as 12.5.";
  if (amount < BigInt(balance.limits.minimum_microunits))
    return `The minimum withdrawal is ${money(balance.limits.minimum_microunits)}.`;
  if (amount > BigInt(balance.withdrawable_usdc_balance))
    return balance.withdrawable_usdc_balance === 0
      ? `Nothing can be withdrawn yet: ${money(balance.usdc_balance)} earned, ${money(balance.maturing_usdc_balance)} of it still maturing, and the minimum is ${money(balance.limits.minimum_microunits)}.`
      : `At most ${money(balance.withdrawable_usdc_balance)} can be withdrawn now.`;
  return undefined;
}

/** The withdrawal form, with its limits stated before anything is submitted. */
export function WithdrawCard({
  token,
  data,
  onDone,
}: {
  token: string;
  data: ProviderData;
  onDone: () => void;
}) {
  const [amount, setAmount] = useState("");
  const [destination, setDestination] = useState(data.profile.wallet);
  const [payout, setPayout] = useState<HostPayout | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const { limits } = data.balance;
  const parsed = parseUsdc(amount, 6);
  const problem = amount.trim() === "" ? undefined : refusal(data, parsed);
  const money = (microunits: number) => formatUsd(microunits, { precise: true });

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (problem !== undefined || parsed === undefined) return;
    setBusy(true);
    setError(undefined);
    setPayout(undefined);
    try {
      setPayout(
        await requestWithdrawal(token, {
          amountUsdc: amount.trim(),
          destination: destination.trim(),
          idempotencyKey: crypto.randomUUID(),
        }),
      );
      setAmount("");
      onDone();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "the withdrawal failed");
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="dash-card" aria-labelledby="withdraw-title">
      <h2 id="withdraw-title">Withdraw</h2>
      <p className="dash-muted">
        Paid in USDC on Solana by the gateway's payout worker. Withdrawable now:{" "}
        <strong data-testid="withdrawable">{money(data.balance.withdrawable_usdc_balance)}</strong>.
      </p>
      <ul className="dash-muted dash-limits" data-testid="withdraw-limits">
        <li>Minimum {money(limits.minimum_microunits)} per withdrawal.</li>
        <li>Up to {money(limits.daily_cap_microunits)} in any 24 hours.</li>
        <li>
          Earnings become withdrawable {period(limits.maturity_seconds)} after the job that earned them (while
          the gateway's checks can still find a problem).
        </li>
        <li>
          In a host's first 30 days, a withdrawal above {money(limits.review_above_microunits)} waits for the
          operator's review.
        </li>
      </ul>
      <form className="dash-form" onSubmit={(event) => void submit(event)}>
        <label htmlFor="withdraw-amount" className="dash-label">
          Amount (USDC)
        </label>
        <input
          id="withdraw-amount"
          className="dash-input"
          inputMode="decimal"
          value={amount}
          aria-invalid={problem !== undefined}
          aria-describedby="withdraw-problem"
          onChange={(event) => setAmount(event.target.value)}
        />
        <label htmlFor="withdraw-destination" className="dash-label">
          Solana wallet
        </label>
        <input
          id="withdraw-destination"
          className="dash-input dash-input--mono"
          value={destination}
          onChange={(event) => setDestination(event.target.value)}
        />
        <button
          type="submit"
          className="dash-button dash-button--primary"
          disabled={busy || amount.trim() === "" || problem !== undefined}
        >
          Request withdrawal
        </button>
      </form>
      <p id="withdraw-problem" className="dash-hint" data-testid="withdraw-problem" aria-live="polite">
        {problem ?? ""}
      </p>
      {payout === undefined ? null : (
        <p className="dash-alert dash-alert--ok" role="status" data-testid="payout-status">
          Withdrawal of {money(payout.amount_microunits)}{" "}
          {payout.status === "awaiting_approval" ? "held for the operator's review" : payout.status}.
        </p>
      )}
      <ErrorAlert message={error} />
    </section>
  );
}
