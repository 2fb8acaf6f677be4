"use client";

import type { SolanaOptions } from "@pod-gateway/contracts/dashboard-api";
import { useConnection, useWallet } from "@solana/wallet-adapter-react";
import { VersionedTransaction } from "@solana/web3.js";
import { useState } from "react";
import { CopyButton } from "./copy-button";
import { DepositSteps } from "./deposit-steps";
import { buildDepositTransaction } from "./deposit-transaction";
import { formatUsd } from "./format";
import { loadProfile } from "./provider-api";
import { SolanaWalletPicker, SolanaWalletScope } from "./solana-wallet-picker";
import { useWalletUsdc } from "./use-wallet-usdc";
import { waitForCommitment } from "./wait-for-commitment";

type Step = "idle" | "signing" | "sent" | "confirmed" | "active" | "failed";
const order = ["signing", "sent", "confirmed", "active"] as const;
const labels: Record<(typeof order)[number], string> = {
  signing: "Approve in your wallet",
  sent: "Sent to the network",
  confirmed: "Confirmed on chain",
  active: "Bond received: the host is active",
};

const sleep = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms));

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
  const { connection } = useConnection();
  const { connected, sendTransaction } = useWallet();
  const { payer, usdc: usdcBalance } = useWalletUsdc(options);
  const [step, setStep] = useState<Step>("idle");
  const [signature, setSignature] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const amount = formatUsd(missing).replace("$", "");

  async function post() {
    if (payer === undefined) return;
    setError(undefined);
    setSignature(undefined);
    setStep("signing");
    try {
      // Asked again right before signing: a bond posted meanwhile (another tab, the agent's
      // `pod-agent bond`) is not posted twice.
      const before = await loadProfile(token);
      if (before.status !== "pending" || before.bond.held_microunits >= before.bond.amount_microunits) {
        setStep("active");
        onActive();
        return;
      }
      const latest = await connection.getLatestBlockhash("confirmed");
      const bytes = await buildDepositTransaction(options, payer, missing, latest);
      const sent = await sendTransaction(VersionedTransaction.deserialize(bytes), connection);
      setSignature(sent);
      setStep("sent");
      await waitForCommitment(
        connection,
        options,
        sent,
        "the transfer failed on chain; no USDC left the wallet",
      );
      setStep("confirmed");
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const profile = await loadProfile(token);
        if (profile.status !== "pending") {
          setStep("active");
          onActive();
          return;
        }
        await sleep(1500);
      }
      throw new Error(
        "the bond is on chain but the gateway has not seen it yet; this page updates when it does",
      );
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "posting the bond failed");
      setStep("failed");
    }
  }

  const busy = step === "signing" || step === "sent" || step === "confirmed";
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
            <>
              No Solana wallet in this browser. Install one (any Wallet Standard wallet), post it from the
              host with <code>pod-agent bond --keypair &lt;file&gt;</code>, or send it by hand as below.
            </>
          }
        />
      )}
      {connected && missing > 0n ? (
        <>
          <button
            type="button"
            className="dash-button dash-button--primary"
            disabled={busy || short || step === "active"}
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
      <DepositSteps step={step} order={order} labels={labels} />
      {signature === undefined ? null : (
        <p className="dash-muted">
          Transaction <code data-testid="bond-signature">{signature.slice(0, 16)}…</code>{" "}
          <CopyButton text={signature} label="Copy transaction signature" />
        </p>
      )}
      {(error ?? walletError) === undefined ? null : (
        <p className="dash-alert dash-alert--error" role="alert">
          {error ?? walletError}
        </p>
      )}
    </div>
  );
}
