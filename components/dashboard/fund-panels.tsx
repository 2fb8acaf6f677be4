"use client";

import type { FundingOptions } from "@pod-gateway/contracts/dashboard-api";
import dynamic from "next/dynamic";
import { useEffect, useState } from "react";
import { CardFunding } from "./card-funding";
import { FundingNotSetUp } from "./funding-not-set-up";
import { fetchFundingOptions } from "./funding-options";

// The wallet code (wallet adapter, web3.js) loads only on this page, and only when deposits are on.
const SolanaDeposit = dynamic(() => import("./solana-deposit").then((module) => module.SolanaDeposit), {
  ssr: false,
  loading: () => <p className="dash-muted">Loading wallet support…</p>,
});

// wagmi and viem load only on this page, and only when Base deposits are on.
const BaseDeposit = dynamic(() => import("./base-deposit").then((module) => module.BaseDeposit), {
  ssr: false,
  loading: () => <p className="dash-muted">Loading wallet support…</p>,
});

/** The ways in: card, USDC from a Solana wallet and USDC on Base, as the gateway's funding options allow. */
export function FundPanels({
  token,
  depositCode,
  canceled,
}: {
  token: string;
  depositCode: string;
  canceled: boolean;
}) {
  const [options, setOptions] = useState<FundingOptions | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    fetchFundingOptions(token).then(setOptions, (caught: unknown) =>
      setError(caught instanceof Error ? caught.message : "could not load the funding options"),
    );
  }, [token]);

  if (error !== undefined)
    return (
      <p className="dash-alert dash-alert--error" role="alert">
        Funding options could not be loaded: {error}
      </p>
    );
  if (options === undefined) return <p className="dash-muted">Loading funding options…</p>;
  if (!options.card.enabled && !options.solana.enabled && !options.base.enabled)
    return <FundingNotSetUp depositCode={depositCode} />;
  return (
    <div className="dash-fund">
      <CardFunding token={token} options={options.card} canceled={canceled} />
      {options.solana.enabled ? (
        <SolanaDeposit token={token} options={options.solana} />
      ) : (
        <section className="dash-card" aria-labelledby="usdc-title">
          <h2 id="usdc-title">USDC on Solana</h2>
          <p className="dash-muted">
            {options.solana.reason ?? "On-chain deposits are off on this gateway."}
          </p>
        </section>
      )}
      {options.base.enabled ? (
        <BaseDeposit token={token} options={options.base} />
      ) : (
        <section className="dash-card" aria-labelledby="base-title">
          <h2 id="base-title">USDC on Base</h2>
          <p className="dash-muted">{options.base.reason ?? "Deposits on Base are off on this gateway."}</p>
        </section>
      )}
    </div>
  );
}
