import { type Address, createSolanaRpc, isAddress, type KeyPairSigner } from "@solana/kit";
import { defaultSolanaRpcUrl, type SolanaNetwork, usdcMintForNetwork } from "../chains/solana/constants";
import {
  createDefaultSolPriceSource,
  createFixedSolPriceSource,
  parseUsdPrice,
  type SolPriceSource,
} from "../chains/solana/sol-price";
import { createSvmCosigner, type SvmCosigner } from "../chains/solana/svm-cosigner";
import type { Env } from "../env";
import { GatewayError } from "../errors/gateway-error";
import { log } from "../log";
import { loadFeePayer } from "./fee-payer-key";

/** Everything the x402 endpoints need, built once per app from its env. */
export interface X402Services {
  network: SolanaNetwork;
  payTo: Address;
  usdcMint: Address;
  rpc: ReturnType<typeof createSolanaRpc>;
  priceSource: SolPriceSource;
  quoteTtlSeconds: number;
  sponsoredFeeDailyBudgetLamports: bigint;
  /** The standard-scheme co-signer; undefined when no fee payer is configured (production). */
  cosigner: SvmCosigner | undefined;
  feePayer: KeyPairSigner | undefined;
  now(): Date;
}

/** Builds the Solana x402 services from env; a 503 when X402_PAY_TO is unset. */
export async function buildX402Services(env: Env): Promise<X402Services> {
  const payTo = env.X402_PAY_TO;
  if (!payTo) {
    throw new GatewayError("service_unavailable", "x402 payments are not configured on this gateway", {
      headers: { "x-should-retry": "false" },
    });
  }
  if (!isAddress(payTo)) throw new Error("X402_PAY_TO is not a Solana address");
  const usdcMint = env.X402_USDC_MINT ?? usdcMintForNetwork(env.SOLANA_NETWORK);
  if (!isAddress(usdcMint)) throw new Error("X402_USDC_MINT is not a Solana address");
  const rpcUrl = env.SOLANA_RPC_URL ?? defaultSolanaRpcUrl(env.SOLANA_NETWORK);
  const priceSource = env.SOL_PRICE_USD
    ? createFixedSolPriceSource(parseUsdPrice(env.SOL_PRICE_USD), "SOL_PRICE_USD")
    : createDefaultSolPriceSource(env.SOL_PRICE_URL ? { url: env.SOL_PRICE_URL } : {});
  const feePayer = await loadFeePayer(env.X402_FEE_PAYER_SECRET, env.NODE_ENV);
  if (feePayer?.generated) {
    log.warn("x402: no X402_FEE_PAYER_SECRET; co-signing with a throwaway fee payer (fund it to test)", {
      fee_payer: feePayer.signer.address,
    });
  }
  if (feePayer?.signer.address === payTo) {
    throw new Error(
      "X402_FEE_PAYER_SECRET must not be the X402_PAY_TO wallet: keep the fee payer a hot wallet",
    );
  }
  return {
    network: env.SOLANA_NETWORK,
    payTo,
    usdcMint,
    rpc: createSolanaRpc(rpcUrl),
    priceSource,
    quoteTtlSeconds: env.X402_QUOTE_TTL_SECONDS,
    sponsoredFeeDailyBudgetLamports: env.X402_SPONSORED_FEE_DAILY_BUDGET_LAMPORTS,
    feePayer: feePayer?.signer,
    cosigner: feePayer
      ? createSvmCosigner({ rpcUrl, feePayer: feePayer.signer, network: env.SOLANA_NETWORK })
      : undefined,
    now: () => new Date(),
  };
}
