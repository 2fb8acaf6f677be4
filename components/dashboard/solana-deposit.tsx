"use client";

import type { SolanaOptions, TokenBalance } from "@pod-gateway/contracts/dashboard-api";
import { useConnection, useWallet } from "@solana/wallet-adapter-react";
import { VersionedTransaction } from "@solana/web3.js";
import { useState } from "react";
import { DepositSteps } from "./deposit-steps";
import { buildDepositTransaction, parseUsdc } from "./deposit-transaction";
import { formatUsd } from "./format";
import { SolanaWalletPicker, SolanaWalletScope } from "./solana-wallet-picker";
import { useWalletUsdc } from "./use-wallet-usdc";
import { waitForCommitment } from "./wait-for-commitment";

type Step = "idle" | "signing" | "sent" | "confirmed" | "credited" | "failed";
const order = ["signing", "sent", "confirmed", "credited"] as const;
const labels: Record<(typeof order)[number], string> = {
  signing: "Approve in your wallet",
  sent: "Sent to the network",
  confirmed: "Confirmed on chain",
  credited: "Credited to your balance",
};

/**
 * USDC from a Solana wallet: the page builds the deposit (TransferChecked + Memo with the
 * deposit code), the wallet signs it, and the gateway's watcher credits it.
 */
export function SolanaDeposit({ token, options }: { token: string; options: SolanaOptions }) {
  return (
    <SolanaWalletScope options={options}>
      {(walletError) => <DepositForm token={token} options={options} walletError={walletError} />}
    </SolanaWalletScope>
  );
}

async function availableBalance(token: string): Promise<number> {
  const response = await fetch(`/proxy/${token}/balance`, { cache: "no-store" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return ((await response.json()) as TokenBalance).usdc_balance;
}

const sleep = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms));

function DepositForm({
  token,
  options,
  walletError,
}: {
  token: string;
  options: SolanaOptions;
  walletError: string | undefined;
}) {
  const { connection } = useConnection();
  const { connected, sendTransaction } = useWallet();
  const { payer, usdc: usdcBalance } = useWalletUsdc(options);
  const [amountText, setAmountText] = useState("10");
  const [step, setStep] = useState<Step>("idle");
  const [signature, setSignature] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [newBalance, setNewBalance] = useState<number | undefined>(undefined);
  const amount = parseUsdc(amountText, options.usdc_decimals);

  async function deposit() {
    if (payer === undefined || amount === undefined) return;
    setError(undefined);
    setSignature(undefined);
    setNewBalance(undefined);
    setStep("signing");
    try {
      const before = await availableBalance(token);
      const latest = await connection.getLatestBlockhash("confirmed");
      const bytes = await buildDepositTransaction(options, payer, amount, latest);
      const sent = await sendTransaction(VersionedTransaction.deserialize(bytes), connection);
      setSignature(sent);
      setStep("sent");
      await waitForCommitment(
        connection,
        options,
        sent,
        "the transaction failed on chain; nothing was credited",
      );
      setStep("confirmed");
      // The watcher credits once the transfer reaches the gateway's commitment; watch the balance.
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const now = await availableBalance(token);
        if (BigInt(now) >= BigInt(before) + amount) {
          setNewBalance(now);
          setStep("credited");
          return;
        }
        await sleep(1500);
      }
      throw new Error(
        "the deposit is on chain but not credited yet; it will appear on the overview when it is",
      );
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "the deposit failed");
      setStep("failed");
    }
  }

  const busy = step === "signing" || step === "sent" || step === "confirmed";
  return (
    <section className="dash-card" aria-labelledby="usdc-title">
      <h2 id="usdc-title">USDC on Solana</h2>
      <p className="dash-muted">
        Connect a wallet and send USDC; the page adds your deposit code <code>{options.memo}</code> as a memo
        so the deposit lands on this token. 1 USDC = $1.00 of balance, no fee.
      </p>
      <SolanaWalletPicker
        usdc={usdcBalance}
        addressTestId="wallet-address"
        noWallet={
          <>
            No Solana wallet found in this browser. Install one that supports the Wallet Standard, or send
            USDC to <code>{options.deposit_address}</code> with the memo <code>{options.memo}</code> from any
            wallet.
          </>
        }
      />
      {!connected ? null : (
        <>
          <div className="dash-form">
            <label htmlFor="usdc-amount" className="dash-label">
              Amount (USDC)
            </label>
            <input
              id="usdc-amount"
              className="dash-input"
              inputMode="decimal"
              value={amountText}
              onChange={(event) => setAmountText(event.target.value)}
              aria-invalid={amount === undefined}
            />
            <button
              type="button"
              className="dash-button dash-button--primary"
              disabled={amount === undefined || busy || (usdcBalance !== undefined && amount > usdcBalance)}
              onClick={() => void deposit()}
            >
              Deposit {amount === undefined ? "" : formatUsd(amount).replace("$", "")} USDC
            </button>
          </div>
          {usdcBalance !== undefined && amount !== undefined && amount > usdcBalance ? (
            <p className="dash-alert dash-alert--error">The wallet holds less USDC than that.</p>
          ) : null}
        </>
      )}
      <DepositSteps step={step} order={order} labels={labels} />
      {signature === undefined ? null : (
        <p className="dash-muted">
          Transaction <code data-testid="deposit-signature">{signature.slice(0, 16)}…</code>
        </p>
      )}
      {newBalance === undefined ? null : (
        <p className="dash-alert dash-alert--ok" role="status">
          Credited. New balance: <strong data-testid="new-balance">{formatUsd(newBalance)}</strong>
        </p>
      )}
      {(error ?? walletError) === undefined ? null : (
        <p className="dash-alert dash-alert--error" role="alert">
          {error ?? walletError}
        </p>
      )}
    </section>
  );
}
