import { type Address, getAddress } from "viem";

/**
 * EVM identifiers the gateway pins in code: Circle's USDC per chain and the EIP-712 domain
 * its EIP-3009 signatures use. A payment is only meaningful against these exact contracts.
 *
 * @see x402-protocol.md §2.8 (the Base Sepolia name differs from mainnet's)
 */

export interface Eip712Token {
  address: Address;
  name: string;
  version: string;
}

const circleUsdc: Record<number, Eip712Token> = {
  8453: { address: getAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"), name: "USD Coin", version: "2" },
  84532: { address: getAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), name: "USDC", version: "2" },
};

/** Circle's USDC on the chain, when the gateway knows it. */
export function circleUsdcOf(chainId: number): Eip712Token | undefined {
  return circleUsdc[chainId];
}

/** The chain id of a CAIP-2 `eip155:<id>` network. */
export function chainIdOf(network: string): number {
  const [namespace, reference] = network.split(":");
  const id = Number(reference);
  if (namespace !== "eip155" || !Number.isSafeInteger(id) || id <= 0) {
    throw new Error(`not an eip155 network: ${network}`);
  }
  return id;
}
