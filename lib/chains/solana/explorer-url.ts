import type { SolanaNetwork } from "./constants";

const clusterQuery: Record<SolanaNetwork, string> = {
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "?cluster=devnet",
  "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": "?cluster=testnet",
};

/** The Solana Explorer page of a transaction on the gateway's cluster: what a person clicks to check a payout. */
export function solanaExplorerTxUrl(network: SolanaNetwork, signature: string): string {
  return `https://explorer.solana.com/tx/${encodeURIComponent(signature)}${clusterQuery[network]}`;
}
