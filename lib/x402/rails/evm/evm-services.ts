import { x402Facilitator } from "@x402/core/facilitator";
import { type FacilitatorClient, HTTPFacilitatorClient } from "@x402/core/server";
import type { Network } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { type Address, createWalletClient, getAddress, http, type PublicClient, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Eip712Token } from "../../../chains/evm/constants";
import { evmChainOf } from "../../../chains/evm/evm-chain";
import type { Database } from "../../../db/client";
import type { Env } from "../../../env";

/** Everything the EVM rail (Base) needs, built once per app from its env. */
export interface EvmServices {
  network: string;
  chainId: number;
  payTo: Address;
  /** The USDC contract; its EIP-712 domain is resolved on first use (`tokenDomain`). */
  tokenAddress: Address;
  tokenDomain(): Promise<Eip712Token>;
  publicClient: PublicClient;
  facilitator: Pick<FacilitatorClient, "verify" | "settle">;
  /** The in-process settler's address; undefined with an external facilitator (it pays its own gas). */
  settler: Address | undefined;
  gasDailyBudgetWei: bigint;
  maxTimeoutSeconds: number;
  /** How long a submitted transfer may take to be mined before the claim is left pending. */
  receiptTimeoutMs: number;
}

/** What the EVM rail's mechanism needs: the database, the hold lifetime, the chain services. */
export interface EvmRailDeps {
  database: Database;
  holdTtlSeconds: number;
  services: EvmServices;
}

/** The rail's services, or undefined when Base is not configured (no pay-to, or no way to settle). */
export function buildEvmServices(env: Env): EvmServices | undefined {
  if (!env.X402_BASE_PAY_TO) return undefined;
  const { network, chainId, rpcUrl, chain, publicClient, tokenAddress, tokenDomain } = evmChainOf(env);
  const payTo = getAddress(env.X402_BASE_PAY_TO);

  let facilitator: EvmServices["facilitator"];
  let settler: Address | undefined;
  if (env.X402_FACILITATOR_URL) {
    facilitator = new HTTPFacilitatorClient({ url: env.X402_FACILITATOR_URL });
  } else {
    if (!env.X402_BASE_SETTLER_KEY) return undefined;
    const account = privateKeyToAccount(env.X402_BASE_SETTLER_KEY as `0x${string}`);
    if (account.address === payTo) {
      throw new Error(
        "X402_BASE_SETTLER_KEY must not be the X402_BASE_PAY_TO wallet: keep the settler a hot wallet",
      );
    }
    const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) }).extend(publicActions);
    const signer = toFacilitatorEvmSigner({
      address: account.address,
      readContract: (args) => wallet.readContract({ ...args, args: args.args ?? [] }),
      verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
      writeContract: (args) =>
        wallet.writeContract({ ...args, args: args.args ?? [] } as Parameters<
          typeof wallet.writeContract
        >[0]),
      sendTransaction: (args) => wallet.sendTransaction(args),
      waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
      getCode: (args) => wallet.getCode(args),
    });
    facilitator = new x402Facilitator().register(network as Network, new ExactEvmScheme(signer));
    settler = account.address;
  }

  return {
    network,
    chainId,
    payTo,
    tokenAddress,
    tokenDomain,
    publicClient,
    facilitator,
    settler,
    gasDailyBudgetWei: env.X402_BASE_GAS_DAILY_BUDGET_WEI,
    maxTimeoutSeconds: env.X402_QUOTE_TTL_SECONDS,
    receiptTimeoutMs: 30_000,
  };
}
