"use client";

import { WalletReadyState } from "@solana/wallet-adapter-base";
import { ConnectionProvider, useConnection, useWallet, WalletProvider } from "@solana/wallet-adapter-react";
import { PublicKey, VersionedTransaction } from "@solana/web3.js";
import { useEffect, useState } from "react";
import { CopyButton } from "./copy-button";
import { DepositSteps } from "./deposit-steps";
import { buildDepositTransaction, payerUsdcAccount } from "./deposit-transaction";
import { formatUsd } from "./format";
import type { SolanaOptions } from "./funding-options";
import { loadProfile } from "./provider-api";

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
  const [walletError, setWalletError] = useState<string | undefined>(undefined);
  return (
    <ConnectionProvider endpoint={options.rpc_url} config={{ commitment: "confirmed" }}>
      <WalletProvider wallets={[]} autoConnect onError={(caught) => setWalletError(caught.message)}>
        <BondForm
          token={token}
          options={options}
          missing={missing}
          onActive={onActive}
          walletError={walletError}
        />
      </WalletProvider>
    </ConnectionProvider>
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
  const { wallets, select, connected, connecting, publicKey, sendTransaction, disconnect } = useWallet();
  const [usdcBalance, setUsdcBalance] = useState<bigint | undefined>(undefined);
  const [step, setStep] = useState<Step>("idle");
  const [signature, setSignature] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const installed = wallets.filter((entry) => entry.readyState === WalletReadyState.Installed);
  const payer = publicKey?.toBase58();
  const amount = formatUsd(missing, { precise: true }).replace("$", "");

  useEffect(() => {
    if (payer === undefined) return;
    setUsdcBalance(undefined);
    payerUsdcAccount(options, payer)
      .then((account) => connection.getTokenAccountBalance(new PublicKey(account)))
      .then((result) => setUsdcBalance(BigInt(result.value.amount)))
      .catch(() => setUsdcBalance(0n));
  }, [payer, options, connection]);

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
      await waitForCommitment(sent);
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

  async function waitForCommitment(sent: string) {
    const wanted = options.commitment === "finalized" ? ["finalized"] : ["confirmed", "finalized"];
    for (let attempt = 0; attempt < 120; attempt += 1) {
      const { value } = await connection.getSignatureStatuses([sent]);
      const status = value[0];
      if (status?.err) throw new Error("the transfer failed on chain; no USDC left the wallet");
      if (status?.confirmationStatus && wanted.includes(status.confirmationStatus)) return;
      await sleep(1000);
    }
    throw new Error("the transfer was not confirmed in time");
  }

  const busy = step === "signing" || step === "sent" || step === "confirmed";
  const short = usdcBalance !== undefined && usdcBalance < missing;
  // The bond arrived: only this tab's record of posting it is left to show, if it posted it.
  if (missing === 0n && step === "idle") return null;
  return (
    <div className="dash-bond">
      {missing === 0n ? null : !connected ? (
        installed.length === 0 ? (
          <p className="dash-alert dash-alert--info">
            No Solana wallet in this browser. Install one (any Wallet Standard wallet), post it from the host
            with <code>pod-agent bond --keypair &lt;file&gt;</code>, or send it by hand as below.
          </p>
        ) : (
          <fieldset className="dash-wallets" aria-label="Wallets">
            {installed.map((entry) => (
              <button
                key={entry.adapter.name}
                type="button"
                className="dash-button"
                onClick={() => select(entry.adapter.name)}
                disabled={connecting}
              >
                {/* biome-ignore lint/performance/noImgElement: a wallet's own data: URI icon. */}
                <img src={entry.adapter.icon} alt="" />
                Connect {entry.adapter.name}
              </button>
            ))}
          </fieldset>
        )
      ) : (
        <>
          <p className="dash-muted">
            Connected: <code data-testid="bond-wallet-address">{payer}</code>{" "}
            <button
              type="button"
              className="dash-button dash-button--quiet"
              onClick={() => void disconnect()}
            >
              Disconnect
            </button>
            <br />
            Wallet USDC:{" "}
            {usdcBalance === undefined ? "…" : formatUsd(usdcBalance, { precise: true }).replace("$", "")}
          </p>
          {missing === 0n ? null : (
            <button
              type="button"
              className="dash-button dash-button--primary"
              disabled={busy || short || step === "active"}
              onClick={() => void post()}
            >
              Post the {amount} USDC bond
            </button>
          )}
          {short && missing > 0n ? (
            <p className="dash-alert dash-alert--error">
              This wallet holds less than {amount} USDC: fund it first, or connect another.
            </p>
          ) : null}
        </>
      )}
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
