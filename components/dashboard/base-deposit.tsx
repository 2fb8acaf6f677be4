"use client";

import type { BaseOptions } from "@pod-gateway/contracts/dashboard-api";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { type Chain, defineChain, parseUnits } from "viem";
import { base, baseSepolia } from "viem/chains";
import {
  createConfig,
  http,
  useConnect,
  useConnection,
  useConnectors,
  useDisconnect,
  useSignTypedData,
  useSwitchChain,
  WagmiProvider,
} from "wagmi";
import { injected } from "wagmi/connectors";
import { formatUsd } from "./format";
import { errorMessage } from "./funding-options";
import { TransferProgress } from "./transfer-progress";
import { sleep } from "./wait-for-commitment";

type Step = "idle" | "signing" | "submitted" | "credited" | "failed";
const order = ["signing", "submitted", "credited"] as const;
const labels: Record<(typeof order)[number], string> = {
  signing: "Sign the deposit in your wallet",
  submitted: "Submitted to Base by the gateway",
  credited: "Credited to your balance",
};

interface Signable {
  salt: `0x${string}`;
  typed_data: {
    domain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
    types: { TransferWithAuthorization: { name: string; type: string }[] };
    primaryType: "TransferWithAuthorization";
    message: {
      from: `0x${string}`;
      to: `0x${string}`;
      value: string;
      validAfter: string;
      validBefore: string;
      nonce: `0x${string}`;
    };
  };
}

function chainOf(options: BaseOptions): Chain {
  const known = [base, baseSepolia].find((chain) => chain.id === options.chain_id);
  if (known) return known;
  // Another chain id (a local chain): the wallet only signs, the page reads nothing through it.
  return defineChain({
    id: options.chain_id,
    name: options.network,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: ["http://127.0.0.1:8545"] } },
  });
}

/**
 * USDC from an EVM wallet on Base. Wallets are found through EIP-6963 (and the injected
 * `window.ethereum`); the wallet signs the EIP-3009 authorization the gateway hands out, with no
 * transaction and no gas of its own; the gateway submits it and credits the token once.
 */
export function BaseDeposit({ token, options }: { token: string; options: BaseOptions }) {
  const [setup] = useState(() => {
    const chain = chainOf(options);
    return {
      queryClient: new QueryClient(),
      config: createConfig({
        chains: [chain],
        connectors: [injected()],
        multiInjectedProviderDiscovery: true,
        transports: { [chain.id]: http() },
        ssr: false,
      }),
    };
  });
  return (
    <WagmiProvider config={setup.config} reconnectOnMount={false}>
      <QueryClientProvider client={setup.queryClient}>
        <DepositForm token={token} options={options} />
      </QueryClientProvider>
    </WagmiProvider>
  );
}

function parseAmount(text: string): bigint | undefined {
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(text.trim())) return undefined;
  const value = parseUnits(text.trim(), 6);
  return value > 0n ? value : undefined;
}

/** A wallet injected as `window.ethereum` (older wallets that do not announce themselves). */
function hasInjectedWallet(): boolean {
  return typeof window !== "undefined" && (window as { ethereum?: unknown }).ethereum !== undefined;
}

function DepositForm({ token, options }: { token: string; options: BaseOptions }) {
  const connection = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();
  const switchChain = useSwitchChain();
  const signTypedData = useSignTypedData();
  const [amountText, setAmountText] = useState("10");
  const [step, setStep] = useState<Step>("idle");
  const [transaction, setTransaction] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [newBalance, setNewBalance] = useState<number | undefined>(undefined);
  const amount = parseAmount(amountText);
  const belowMinimum = amount !== undefined && amount < BigInt(options.min_microunits);
  const address = connection.address;
  // The injected fallback only when no wallet announced itself through EIP-6963, and only when
  // a wallet is actually injected: without one it would offer "Connect Injected" and then fail
  // with "Provider not found".
  const announced = connectors.filter((connector) => connector.id !== "injected");
  const choices = announced.length > 0 ? announced : hasInjectedWallet() ? connectors : [];

  async function deposit() {
    if (address === undefined || amount === undefined) return;
    setError(undefined);
    setTransaction(undefined);
    setNewBalance(undefined);
    setStep("signing");
    try {
      if (connection.chainId !== options.chain_id)
        await switchChain.mutateAsync({ chainId: options.chain_id });
      const offer = await fetch(
        `/proxy/${token}/fund/base/typed-data?from=${address}&amount_microunits=${amount}`,
        { cache: "no-store" },
      );
      if (!offer.ok) throw new Error(await errorMessage(offer));
      const signable = (await offer.json()) as Signable;
      const { message } = signable.typed_data;
      const signature = await signTypedData.mutateAsync({
        domain: signable.typed_data.domain,
        types: signable.typed_data.types,
        primaryType: signable.typed_data.primaryType,
        message: {
          ...message,
          value: BigInt(message.value),
          validAfter: BigInt(message.validAfter),
          validBefore: BigInt(message.validBefore),
        },
      });
      setStep("submitted");
      const body = JSON.stringify({ authorization: message, signature, salt: signable.salt });
      // 202 means submitted but not mined yet: the same body finishes it once it is.
      for (let attempt = 0; attempt < 40; attempt += 1) {
        const response = await fetch(`/proxy/${token}/fund/base`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        if (!response.ok) throw new Error(await errorMessage(response));
        const result = (await response.json()) as { transaction: string | null; usdc_balance: number };
        if (result.transaction) setTransaction(result.transaction);
        if (response.status === 201) {
          setNewBalance(result.usdc_balance);
          setStep("credited");
          return;
        }
        await sleep(3000);
      }
      throw new Error("the transfer is submitted but not mined yet; it will be credited when it is");
    } catch (caught) {
      const text = caught instanceof Error ? caught.message : "the deposit failed";
      setError(/User rejected|denied/i.test(text) ? "You declined the signature; nothing was sent." : text);
      setStep("failed");
    }
  }

  const busy = step === "signing" || step === "submitted";
  return (
    <section className="dash-card" aria-labelledby="base-title">
      <h2 id="base-title">USDC on Base</h2>
      <p className="dash-muted">
        Connect an EVM wallet and sign a USDC transfer to the gateway; it submits the transfer and pays the
        gas, so your wallet needs no ETH. The signature is bound to this token. 1 USDC = $1.00 of balance, at
        least {formatUsd(options.min_microunits).replace("$", "")} USDC.
      </p>
      {connection.status !== "connected" || address === undefined ? (
        choices.length === 0 ? (
          <p className="dash-alert dash-alert--info">
            No EVM wallet found in this browser. Open this page in a browser with a wallet extension
            (MetaMask, Coinbase Wallet, Rabby…) or in your wallet app's browser, or fund by card above.
          </p>
        ) : (
          <fieldset className="dash-wallets" aria-label="EVM wallets">
            {choices.map((connector) => (
              <button
                key={connector.uid}
                type="button"
                className="dash-button"
                onClick={() =>
                  connect.mutate(
                    { connector },
                    {
                      onError: (caught) => setError(caught.message),
                    },
                  )
                }
                disabled={connect.isPending}
              >
                {connector.icon ? (
                  // biome-ignore lint/performance/noImgElement: a wallet's own data: URI icon.
                  <img src={connector.icon} alt="" />
                ) : null}
                Connect {connector.id === "injected" ? "browser wallet" : connector.name}
              </button>
            ))}
          </fieldset>
        )
      ) : (
        <>
          <p className="dash-muted">
            Connected:{" "}
            <code className="dash-wrap" data-testid="evm-address">
              {address}
            </code>{" "}
            <button
              type="button"
              className="dash-button dash-button--quiet"
              onClick={() => disconnect.mutate()}
            >
              Disconnect
            </button>
          </p>
          <div className="dash-form">
            <label htmlFor="base-usdc-amount" className="dash-label">
              Amount (USDC on Base)
            </label>
            <input
              id="base-usdc-amount"
              className="dash-input"
              inputMode="decimal"
              value={amountText}
              onChange={(event) => setAmountText(event.target.value)}
              aria-invalid={amount === undefined || belowMinimum}
            />
            <button
              type="button"
              className="dash-button dash-button--primary"
              disabled={amount === undefined || belowMinimum || busy}
              onClick={() => void deposit()}
            >
              Deposit {amount === undefined ? "" : formatUsd(amount).replace("$", "")} USDC on Base
            </button>
          </div>
        </>
      )}
      <TransferProgress
        step={step}
        order={order}
        labels={labels}
        transaction={
          transaction === undefined ? undefined : { id: transaction, shown: 18, testId: "base-transaction" }
        }
        credited={newBalance === undefined ? undefined : { balance: newBalance, testId: "base-new-balance" }}
        error={error}
      />
    </section>
  );
}
