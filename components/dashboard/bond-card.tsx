"use client";

import { useState } from "react";
import { BondWallet } from "./bond-wallet";
import { CopyButton } from "./copy-button";
import { formatUsd, formatUtc } from "./format";
import type { ProviderData } from "./provider-api";

/**
 * The bond: what is held, and while the host is pending, two ways to post what is missing: a
 * browser wallet (the page adds the memo) or `pod-agent bond` on the host, with the address and
 * memo to copy for anything else.
 */
export function BondCard({
  token,
  data,
  onChange,
}: {
  token: string;
  data: ProviderData;
  onChange: () => void;
}) {
  const { bond, status, activated_at } = data.profile;
  const missing = BigInt(Math.max(0, bond.amount_microunits - bond.held_microunits));
  const amount = formatUsd(bond.amount_microunits).replace("$", "");
  // Opened while the bond was missing, the wallet's progress stays on screen after it arrives.
  const [posting] = useState(status === "pending" && missing > 0n);
  return (
    <section className="dash-card" aria-labelledby="bond-title">
      <h2 id="bond-title">Bond</h2>
      <p data-testid="bond-summary">
        {formatUsd(bond.held_microunits, { precise: true })} of {formatUsd(bond.amount_microunits)} received.{" "}
        {status === "active"
          ? `The host is active and can be routed to${activated_at ? ` (since ${formatUtc(activated_at)} UTC)` : ""}.`
          : status === "pending"
            ? "The host is pending: it is routed to once the bond has arrived."
            : `Status: ${status}.`}
      </p>
      {!posting ? null : !bond.solana.enabled ? (
        <p className="dash-muted">
          This gateway takes no on-chain bonds: its operator activates hosts (bond code{" "}
          <code>{bond.deposit_code}</code>).
        </p>
      ) : (
        <>
          {missing === 0n ? null : (
            <p className="dash-muted">
              The bond is {amount} USDC on Solana, held while the host operates and returned when it retires.
              Connect a wallet and post it; the page adds the bond code as a memo.
            </p>
          )}
          <BondWallet token={token} options={bond.solana} missing={missing} onActive={onChange} />
          {missing === 0n ? null : (
            <details className="dash-bond__manual">
              <summary>Other ways to post it</summary>
              <p className="dash-muted">
                From the host, with a Solana keypair file that holds the USDC and a little SOL:
              </p>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the command scrolls sideways on a phone; the keyboard must reach it. */}
              <pre className="dash-code-line" tabIndex={0}>
                <code>pod-agent bond --keypair ~/.config/solana/id.json</code>
              </pre>
              <p className="dash-muted">
                From any wallet that can add a memo: send{" "}
                {formatUsd(missing, { precise: true }).replace("$", "")} USDC to
              </p>
              <p className="dash-copy-row">
                <code data-testid="bond-destination">{bond.solana.deposit_address}</code>
                <CopyButton text={bond.solana.deposit_address} label="Copy bond address" />
              </p>
              <p className="dash-muted">with the memo</p>
              <p className="dash-copy-row">
                <code data-testid="bond-memo">{bond.memo}</code>
                <CopyButton text={bond.memo} label="Copy bond memo" />
              </p>
              <p className="dash-muted">
                A transfer without this memo cannot be matched to the host and waits for the operator.
              </p>
            </details>
          )}
        </>
      )}
    </section>
  );
}
