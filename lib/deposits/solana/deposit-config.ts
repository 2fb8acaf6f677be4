import type { Address } from "@solana/kit";
import { deriveAssociatedTokenAddress } from "../../chains/solana/associated-token-address";
import {
  defaultSolanaRpcUrl,
  MEMO_PROGRAM_ADDRESS,
  type SolanaNetwork,
  TOKEN_PROGRAM_ADDRESS,
  USDC_DECIMALS,
  usdcMintForNetwork,
} from "../../chains/solana/constants";
import type { Env } from "../../env";
import { notOffered } from "../../funding/funding-setup";

/** On-chain deposits as configured: where USDC goes, and how the watcher reads the chain. */
export interface SolanaDepositConfig {
  enabled: true;
  /** SOLANA_DEPOSIT_ADDRESS: the wallet that owns the deposit USDC account. */
  owner: Address;
  usdcMint: Address;
  network: SolanaNetwork;
  rpcUrl: string;
  /** What the dashboard's browser code talks to. */
  publicRpcUrl: string;
  commitment: "confirmed" | "finalized";
}

export type SolanaDepositSettings = SolanaDepositConfig | { enabled: false; reason: string };

/** Customers read this; what the operator must set is in GET /v1/admin/funding. */
const depositsOffReason = notOffered.solana;

/** Deposits are on only when the operator named a wallet it controls; nothing else is ever advertised. */
export function solanaDepositSettings(env: Env): SolanaDepositSettings {
  const owner = env.SOLANA_DEPOSIT_ADDRESS;
  if (!owner) return { enabled: false, reason: depositsOffReason };
  const rpcUrl = env.SOLANA_RPC_URL ?? defaultSolanaRpcUrl(env.SOLANA_NETWORK);
  return {
    enabled: true,
    owner: owner as Address,
    // The x402 override names the same USDC the gateway accepts everywhere on this cluster.
    usdcMint: (env.X402_USDC_MINT ?? usdcMintForNetwork(env.SOLANA_NETWORK)) as Address,
    network: env.SOLANA_NETWORK,
    rpcUrl,
    publicRpcUrl: env.SOLANA_PUBLIC_RPC_URL ?? rpcUrl,
    commitment: env.SOLANA_DEPOSIT_COMMITMENT,
  };
}

/** The deposit USDC account: the associated token account of the owner for the USDC mint. */
export function depositTokenAccount(config: SolanaDepositConfig): Promise<Address> {
  return deriveAssociatedTokenAddress(config.owner, config.usdcMint);
}

/** What a client needs to build a deposit: a USDC TransferChecked plus a Memo with the code. */
export async function depositInstructions(config: SolanaDepositConfig, memo: string) {
  return {
    enabled: true as const,
    deposit_address: config.owner,
    deposit_token_account: await depositTokenAccount(config),
    usdc_mint: config.usdcMint,
    usdc_decimals: USDC_DECIMALS,
    network: config.network,
    rpc_url: config.publicRpcUrl,
    memo,
    memo_program: MEMO_PROGRAM_ADDRESS,
    token_program: TOKEN_PROGRAM_ADDRESS,
    commitment: config.commitment,
  };
}
