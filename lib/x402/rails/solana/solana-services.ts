import {
  type Address,
  createSolanaRpc,
  generateKeyPairSigner,
  isAddress,
  type KeyPairSigner,
} from "@solana/kit";
import {
  defaultSolanaRpcUrl,
  type SolanaNetwork,
  usdcMintForNetwork,
} from "../../../chains/solana/constants";
import { parseFeePayerSecret } from "../../../chains/solana/fee-payer-key";
import {
  createDefaultSolPriceSource,
  createFixedSolPriceSource,
  parseUsdPrice,
  type SolPriceSource,
} from "../../../chains/solana/sol-price";
import { createSvmCosigner, type SvmCosigner } from "../../../chains/solana/svm-cosigner";
import type { Database } from "../../../db/client";
import type { Env } from "../../../env";
import { log } from "../../../log";

/** Everything the Solana rail needs, built once per app from its env. */
export interface SolanaServices {
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

/** What the Solana rail's mechanisms share: the database, the settings they read, the services. */
export interface SolanaRailDeps {
  database: Database;
  holdTtlSeconds: number;
  /** X402_REQUIRE_PAYER_PROOF: a self-broadcast payment must carry the payer's signature. */
  requirePayerProof: boolean;
  /** Built on first use; a failed build is not kept (its requests fail until it builds). */
  services(): Promise<SolanaServices>;
}

/**
 * The configured co-signing fee payer (X402_FEE_PAYER_SECRET); outside production a throwaway
 * one when none is configured. A secret that does not parse stops the gateway instead of
 * silently disabling the standard scheme.
 */
async function loadFeePayer(
  secret: string | undefined,
  nodeEnv: Env["NODE_ENV"],
): Promise<{ signer: KeyPairSigner; generated: boolean } | undefined> {
  if (secret) return { signer: await parseFeePayerSecret(secret, "X402_FEE_PAYER_SECRET"), generated: false };
  if (nodeEnv === "production") return undefined;
  return { signer: await generateKeyPairSigner(), generated: true };
}

/** Builds the Solana services from env (X402_PAY_TO is set: the rail exists only then). */
export async function buildSolanaServices(env: Env, payTo: string): Promise<SolanaServices> {
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
