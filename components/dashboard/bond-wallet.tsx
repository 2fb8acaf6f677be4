"use client";

import type { SolanaOptions } from "@pod-gateway/contracts/dashboard-api";
import { formatUsd } from "./format";
import { loadProfile } from "./provider-api";
import { useSolanaTransfer } from "./solana-transfer";
import { SolanaWalletPicker, SolanaWalletScope } from "./solana-wallet-picker";
import { TransferProgress } from "./transfer-progress";

/**
 * Posts the host's bond from a Solana wallet in two clicks (connect, post): the page builds the
 * same USDC TransferChecked + Memo a deposit is, with the bond code as the memo (wallets cannot
 * add a memo to a token transfer themselves), for exactly what is missing of the bond. It then
 * follows the transfer until the gateway has seen it and the host is active.
 */
export function BondWallet({
  token,
  options,
  missing,
  onActive,
}: {
  token: string;
  options: SolanaOptions;
  missing: bigint;
  onActive: () => void;
}) {
  return (
    <SolanaWalletScope options={options}>
      {(walletError) => (
        <BondForm
          token={token}
          options={options}
          missing={missing}
          onActive={onActive}
          walletError={walletError}
        />
      )}
    </SolanaWalletScope>
  );
}

function BondForm({
  token,
  options,
  missing,
  onActive,
  walletError,
}: {
  token: string;
  options: SolanaOptions;
  missing: bigint;
  onActive: () => void;
  walletError: string | undefined;
}) {
  const transfer = useSolanaTransfer(options, "active", "Bond received: the host is active");
  const amount = formatUsd(missing).replace("$", "");

  async function post() {
    const active = await transfer.send({
      amount: missing,
      // Asked again right before signing: a bond posted meanwhile (another tab, the agent's
      // `pod-agent bond`) is not posted twice.
      watch: async () => {
        const before = await loadProfile(token);
        if (before.status !== "pending" || before.bond.held_microunits >= before.bond.amount_microunits)
          return undefined;
        return async () => (await loadProfile(token)).status !== "pending";
      },
      failedOnChain: "the transfer failed on chain; no USDC left the wallet",
      notSeen: "the bond is on chain but the gateway has not seen it yet; this page updates when it does",
      failed: "posting the bond failed",
    });
    if (active) onActive();
  }

  const { connected, usdc: usdcBalance } = transfer;
  const { step } = transfer.steps;
  const short = usdcBalance !== undefined && usdcBalance < missing;
  // The bond arrived: only this tab's record of posting it is left to show, if it posted it.
  if (missing === 0n && step === "idle") return null;
  return (
    <div className="dash-bond">
      {missing === 0n ? null : (
        <SolanaWalletPicker
          usdc={usdcBalance}
          addressTestId="bond-wallet-address"
          noWallet={
            <p>
              No Solana wallet in this browser. Install one (any Wallet Standard wallet), post it from the
              host with <code>pod-agent bond --keypair &lt;file&gt;</code>, or send it by hand as below.
            </p>
          }
        />
      )}
      {connected && missing > 0n ? (
        <>
          <button
            type="button"
            className="dash-button dash-button--primary"
            disabled={transfer.busy || short || step === "active"}
            onClick={() => void post()}
          >
            Post the {amount} USDC bond
          </button>
          {short ? (
            <p className="dash-alert dash-alert--error">
              This wallet holds less than {amount} USDC: fund it first, or connect another.
            </p>
          ) : null}
        </>
      ) : null}
      <TransferProgress
        {...transfer.steps}
        transaction={
          transfer.signature === undefined
            ? undefined
            : { id: transfer.signature, shown: 16, testId: "bond-signature", copy: true }
        }
        error={transfer.error ?? walletError}
      />
    </div>
  );
}
