"use client";

import type { SolanaOptions, TokenBalance } from "@pod-gateway/contracts/dashboard-api";
import { useState } from "react";
import { CopyButton } from "./copy-button";
import { parseUsdc } from "./deposit-transaction";
import { formatUsd } from "./format";
import { useSolanaTransfer } from "./solana-transfer";
import { SolanaWalletPicker, SolanaWalletScope } from "./solana-wallet-picker";
import { TransferProgress } from "./transfer-progress";

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

function DepositForm({
  token,
  options,
  walletError,
}: {
  token: string;
  options: SolanaOptions;
  walletError: string | undefined;
}) {
  const transfer = useSolanaTransfer(options, "credited", "Credited to your balance");
  const { connected, usdc: usdcBalance, busy } = transfer;
  const [amountText, setAmountText] = useState("10");
  const [newBalance, setNewBalance] = useState<number | undefined>(undefined);
  const amount = parseUsdc(amountText, options.usdc_decimals);

  async function deposit() {
    if (amount === undefined) return;
    setNewBalance(undefined);
    await transfer.send({
      amount,
      // The watcher credits once the transfer reaches the gateway's commitment; watch the balance.
      watch: async () => {
        const before = await availableBalance(token);
        return async () => {
          const now = await availableBalance(token);
          if (BigInt(now) < BigInt(before) + amount) return false;
          setNewBalance(now);
          return true;
        };
      },
      failedOnChain: "the transaction failed on chain; nothing was credited",
      notSeen: "the deposit is on chain but not credited yet; it will appear on the overview when it is",
      failed: "the deposit failed",
    });
  }

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
            <p>
              No Solana wallet found in this browser. Install one that supports the Wallet Standard, or send
              USDC from any wallet to
            </p>
            <p className="dash-copy-row">
              <code data-testid="usdc-deposit-address">{options.deposit_address}</code>
              <CopyButton text={options.deposit_address} label="Copy deposit address" />
            </p>
            <p>with the memo</p>
            <p className="dash-copy-row">
              <code data-testid="usdc-deposit-memo">{options.memo}</code>
              <CopyButton text={options.memo} label="Copy deposit memo" />
            </p>
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
      <TransferProgress
        {...transfer.steps}
        transaction={
          transfer.signature === undefined
            ? undefined
            : { id: transfer.signature, shown: 16, testId: "deposit-signature" }
        }
        error={transfer.error ?? walletError}
        credited={newBalance === undefined ? undefined : { balance: newBalance, testId: "new-balance" }}
      />
    </section>
  );
}
