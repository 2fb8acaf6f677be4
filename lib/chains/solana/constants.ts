import { type Address, address } from "@solana/kit";

/**
 * Solana identifiers the gateway pins in code. Mints and programs are never taken
 * from a client payload: a payment is only meaningful against these exact keys.
 *
 * @see https://github.com/coinbase/x402/blob/main/specs/schemes/exact/scheme_exact_svm.md
 */

/** CAIP-2 ids: `solana:` + the first 32 characters of the genesis hash. */
const SOLANA_MAINNET_CAIP2 = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
export const SOLANA_DEVNET_CAIP2 = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const SOLANA_TESTNET_CAIP2 = "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z";

export type SolanaNetwork =
  | typeof SOLANA_MAINNET_CAIP2
  | typeof SOLANA_DEVNET_CAIP2
  | typeof SOLANA_TESTNET_CAIP2;

/** Circle USDC (classic SPL Token program, 6 decimals). */
const USDC_MAINNET_MINT = address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
/** Circle's devnet/testnet USDC; the local test chain recreates a mint at this address. */
export const USDC_DEVNET_MINT = address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
export const USDC_DECIMALS = 6;

/** Wrapped SOL (the SPL Token native mint, 9 decimals). */
export const WSOL_MINT = address("So11111111111111111111111111111111111111112");
export const LAMPORTS_PER_SOL = 1_000_000_000n;

export function usdcMintForNetwork(network: SolanaNetwork): Address {
  return network === SOLANA_MAINNET_CAIP2 ? USDC_MAINNET_MINT : USDC_DEVNET_MINT;
}

const publicRpcUrls: Record<SolanaNetwork, string> = {
  [SOLANA_MAINNET_CAIP2]: "https://api.mainnet-beta.solana.com",
  [SOLANA_DEVNET_CAIP2]: "https://api.devnet.solana.com",
  [SOLANA_TESTNET_CAIP2]: "https://api.testnet.solana.com",
};

/** The cluster's public RPC endpoint: the fallback when SOLANA_RPC_URL is unset. */
export function defaultSolanaRpcUrl(network: SolanaNetwork): string {
  return publicRpcUrls[network];
}

export const SYSTEM_PROGRAM_ADDRESS = address("11111111111111111111111111111111");
export const TOKEN_PROGRAM_ADDRESS = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
export const TOKEN_2022_PROGRAM_ADDRESS = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
export const ASSOCIATED_TOKEN_PROGRAM_ADDRESS = address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
export const COMPUTE_BUDGET_PROGRAM_ADDRESS = address("ComputeBudget111111111111111111111111111111");
/** SPL Memo v2 (the one x402 clients use). */
export const MEMO_PROGRAM_ADDRESS = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
/** SPL Memo v1: older wallets and exchanges still write memos with it. */
export const MEMO_V1_PROGRAM_ADDRESS = address("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo");
/** Phantom/Solflare inject Lighthouse assertion instructions into transactions they sign. */
export const LIGHTHOUSE_PROGRAM_ADDRESS = address("L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95");
