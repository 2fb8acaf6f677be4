"use client";

import type { SolanaOptions } from "@pod-gateway/contracts/dashboard-api";
import { WalletReadyState } from "@solana/wallet-adapter-base";
import { ConnectionProvider, useWallet, WalletProvider } from "@solana/wallet-adapter-react";
import { type ReactNode, useState } from "react";
import { formatUsd } from "./format";

/**
 * The Solana wallet of the funding page's deposit and the provider page's bond: the wallet
 * providers, the connect buttons, and the connected wallet with its USDC. Any wallet that
 * implements the Wallet Standard is detected (`wallets={[]}`: no per-wallet adapter packages).
 */

/**
 * The providers `useWallet` and `useConnection` read. autoConnect: the provider connects the
 * wallet the person picks (and, on a later visit, the one picked before). Connecting from a
 * component's own effect raced the provider's listeners: a wallet that answers at once emitted
 * "connect" before the provider listened, and looked unconnected.
 */
export function SolanaWalletScope({
  options,
  children,
}: {
  options: SolanaOptions;
  /** Gets the last error a wallet reported (a refused connection, a closed popup). */
  children: (walletError: string | undefined) => ReactNode;
}) {
  const [walletError, setWalletError] = useState<string | undefined>(undefined);
  return (
    <ConnectionProvider endpoint={options.rpc_url} config={{ commitment: "confirmed" }}>
      <WalletProvider wallets={[]} autoConnect onError={(caught) => setWalletError(caught.message)}>
        {children(walletError)}
      </WalletProvider>
    </ConnectionProvider>
  );
}

/**
 * Connect buttons for the wallets installed in this browser (or `noWallet` when there is none),
 * then the connected wallet's address, a Disconnect button and its USDC.
 */
export function SolanaWalletPicker({
  usdc,
  noWallet,
  addressTestId,
}: {
  usdc: bigint | undefined;
  noWallet: ReactNode;
  addressTestId: string;
}) {
  const { wallets, select, connected, connecting, publicKey, disconnect } = useWallet();
  if (!connected) {
    const installed = wallets.filter((entry) => entry.readyState === WalletReadyState.Installed);
    if (installed.length === 0) return <div className="dash-alert dash-alert--info">{noWallet}</div>;
    return (
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
    );
  }
  return (
    <p className="dash-muted">
      Connected:{" "}
      <code className="dash-wrap" data-testid={addressTestId}>
        {publicKey?.toBase58()}
      </code>{" "}
      <button type="button" className="dash-button dash-button--quiet" onClick={() => void disconnect()}>
        Disconnect
      </button>
      <br />
      Wallet USDC: {usdc === undefined ? "…" : formatUsd(usdc).replace("$", "")}
    </p>
  );
}
