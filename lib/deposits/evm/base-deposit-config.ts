import {
  type Address,
  createWalletClient,
  getAddress,
  http,
  nonceManager,
  type PublicClient,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type EvmChain, evmChainOf } from "../../chains/evm/evm-chain";
import type { Env } from "../../env";
import { notOffered } from "../../funding/funding-setup";

/** Customers read this; what the operator must set is in GET /v1/admin/funding. */
const baseDepositsOffReason = notOffered.base;

/** What Base deposits need, built once per app: the chain, where deposits go, who submits them. */
export interface BaseDepositServices {
  enabled: true;
  chain: EvmChain;
  publicClient: PublicClient;
  /** BASE_DEPOSIT_ADDRESS: the `to` of every deposit authorization. */
  depositAddress: Address;
  /** The settler (X402_BASE_SETTLER_KEY): submits transferWithAuthorization and pays the gas. */
  wallet: WalletClient;
  settler: Address;
  gasDailyBudgetWei: bigint;
  /** How long a deposit authorization the gateway hands out stays valid. */
  authorizationTtlSeconds: number;
  /** How long a submitted transfer may take to be mined before the deposit is left pending. */
  receiptTimeoutMs: number;
}

export type BaseDepositSettings = BaseDepositServices | { enabled: false; reason: string };

function buildBaseDeposits(env: Env): BaseDepositSettings {
  if (!env.BASE_DEPOSIT_ADDRESS || !env.X402_BASE_SETTLER_KEY) {
    return { enabled: false, reason: baseDepositsOffReason };
  }
  const chain = evmChainOf(env);
  const depositAddress = getAddress(env.BASE_DEPOSIT_ADDRESS);
  // One nonce sequence per process for the settler's own transactions, so concurrent deposits
  // from this process never reuse a transaction nonce.
  const account = privateKeyToAccount(env.X402_BASE_SETTLER_KEY as `0x${string}`, { nonceManager });
  if (account.address === depositAddress) {
    throw new Error(
      "X402_BASE_SETTLER_KEY must not be the BASE_DEPOSIT_ADDRESS wallet: keep the settler a hot wallet",
    );
  }
  return {
    enabled: true,
    chain,
    publicClient: chain.publicClient,
    depositAddress,
    wallet: createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl) }),
    settler: account.address,
    gasDailyBudgetWei: env.X402_BASE_GAS_DAILY_BUDGET_WEI,
    authorizationTtlSeconds: 900,
    receiptTimeoutMs: 30_000,
  };
}

/** Base deposits as this gateway is configured: built on first use (clients, keys), then kept. */
export function baseDepositsLoader(env: Env): () => BaseDepositSettings {
  let settings: BaseDepositSettings | undefined;
  return () => {
    settings ??= buildBaseDeposits(env);
    return settings;
  };
}
