"use client";

import type { SolanaOptions } from "@pod-gateway/contracts/dashboard-api";
import { useConnection, useWallet } from "@solana/wallet-adapter-react";
import { VersionedTransaction } from "@solana/web3.js";
import { useState } from "react";
import { buildDepositTransaction } from "./deposit-transaction";
import { useWalletUsdc } from "./use-wallet-usdc";
import { sleep, waitForCommitment } from "./wait-for-commitment";

type ChainStep = "signing" | "sent" | "confirmed";

const chainLabels: Record<ChainStep, string> = {
  signing: "Approve in your wallet",
  sent: "Sent to the network",
  confirmed: "Confirmed on chain",
};

export interface SolanaTransfer {
  amount: bigint;
  /**
   * Asked right before signing. Resolves with the check that the gateway has seen the transfer
   * (polled once it is confirmed), or with undefined when nothing needs sending any more.
   */
  watch: () => Promise<(() => Promise<boolean>) | undefined>;
  /** What to say when the transaction fails on chain, and when the gateway never sees it. */
  failedOnChain: string;
  notSeen: string;
  failed: string;
}

/**
 * A USDC transfer from the connected Solana wallet to the gateway's deposit address with the
 * token's deposit code as memo (a deposit, a host's bond): the page builds it, the wallet signs,
 * and `send` follows it on chain and then until the gateway has it, the `done` step.
 */
export function useSolanaTransfer<Done extends string>(
  options: SolanaOptions,
  done: Done,
  doneLabel: string,
) {
  const { connection } = useConnection();
  const { connected, sendTransaction } = useWallet();
  const { payer, usdc } = useWalletUsdc(options);
  const [step, setStep] = useState<ChainStep | Done | "idle" | "failed">("idle");
  const [signature, setSignature] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  /** Resolves true once the gateway has the transfer (or had what it was for already). */
  async function send(transfer: SolanaTransfer): Promise<boolean> {
    if (payer === undefined) return false;
    setError(undefined);
    setSignature(undefined);
    setStep("signing");
    try {
      const seen = await transfer.watch();
      if (seen === undefined) {
        setStep(done);
        return true;
      }
      const latest = await connection.getLatestBlockhash("confirmed");
      const bytes = await buildDepositTransaction(options, payer, transfer.amount, latest);
      const sent = await sendTransaction(VersionedTransaction.deserialize(bytes), connection);
      setSignature(sent);
      setStep("sent");
      await waitForCommitment(connection, options, sent, transfer.failedOnChain);
      setStep("confirmed");
      for (let attempt = 0; attempt < 200; attempt += 1) {
        if (await seen()) {
          setStep(done);
          return true;
        }
        await sleep(1500);
      }
      throw new Error(transfer.notSeen);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : transfer.failed);
      setStep("failed");
      return false;
    }
  }

  return {
    connected,
    usdc,
    send,
    busy: step === "signing" || step === "sent" || step === "confirmed",
    signature,
    error,
    steps: {
      step,
      order: ["signing", "sent", "confirmed", done] as const,
      labels: { ...chainLabels, [done]: doneLabel } as Record<ChainStep | Done, string>,
    },
  };
}
