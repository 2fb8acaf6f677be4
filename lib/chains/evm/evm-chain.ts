import {
  type Address,
  type Chain,
  createPublicClient,
  defineChain,
  getAddress,
  http,
  type PublicClient,
} from "viem";
import type { Env } from "../../env";
import { chainIdOf, circleUsdcOf, type Eip712Token } from "./constants";
import { eip3009Abi } from "./eip3009";

/** The configured EVM chain (X402_BASE_NETWORK, BASE_RPC_URL, X402_BASE_USDC) and its USDC. */
export interface EvmChain {
  network: string;
  chainId: number;
  rpcUrl: string;
  chain: Chain;
  publicClient: PublicClient;
  /** The USDC contract; its EIP-712 domain is resolved on first use (`tokenDomain`). */
  tokenAddress: Address;
  tokenDomain(): Promise<Eip712Token>;
}

const defaultRpcUrls: Record<number, string> = {
  8453: "https://mainnet.base.org",
  84532: "https://sepolia.base.org",
};

/** The chain both Base features use: x402 payments and token deposits. */
export function evmChainOf(env: Env): EvmChain {
  const network = env.X402_BASE_NETWORK;
  const chainId = chainIdOf(network);
  const rpcUrl = env.BASE_RPC_URL ?? defaultRpcUrls[chainId];
  if (!rpcUrl) throw new Error(`BASE_RPC_URL is required for ${network}`);
  const known = circleUsdcOf(chainId);
  const tokenAddress = getAddress(env.X402_BASE_USDC ?? known?.address ?? "");
  const chain = defineChain({
    id: chainId,
    name: network,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient;
  let domain: Promise<Eip712Token> | undefined;
  return {
    network,
    chainId,
    rpcUrl,
    chain,
    publicClient,
    tokenAddress,
    tokenDomain() {
      if (known && known.address === tokenAddress) return Promise.resolve(known);
      // Another token (a local chain's FiatToken): its domain is what the contract says it is.
      domain ??= Promise.all([
        publicClient.readContract({ address: tokenAddress, abi: eip3009Abi, functionName: "name" }),
        publicClient.readContract({ address: tokenAddress, abi: eip3009Abi, functionName: "version" }),
      ]).then(([name, version]) => ({ address: tokenAddress, name, version }));
      domain.catch(() => {
        domain = undefined;
      });
      return domain;
    },
  };
}
