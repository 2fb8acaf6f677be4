import { address, createSolanaRpc, isAddress } from "@solana/kit";
import { defaultSolanaRpcUrl, usdcMintForNetwork } from "../../chains/solana/constants";
import { parseFeePayerSecret } from "../../chains/solana/fee-payer-key";
import { broadcastAndConfirm } from "../../chains/solana/transaction-broadcast";
import type { Env } from "../../env";
import type { PayoutRail } from "../core/run-payouts";
import { signUsdcTransfer } from "./usdc-transfer";

/**
 * The payout wallet and chain (the services' `payoutRail`), built on first use; undefined when no
 * payout wallet (HOST_PAYOUT_SECRET) is configured.
 */
export function payoutRailLoader(env: Env): () => Promise<PayoutRail | undefined> {
  let rail: Promise<PayoutRail | undefined> | undefined;
  return () => {
    rail ??= buildPayoutRail(env);
    return rail;
  };
}

async function buildPayoutRail(env: Env): Promise<PayoutRail | undefined> {
  const secret = env.HOST_PAYOUT_SECRET;
  if (!secret) return undefined;
  const payer = await parseFeePayerSecret(secret);
  const configuredMint = env.X402_USDC_MINT ?? usdcMintForNetwork(env.SOLANA_NETWORK);
  if (!isAddress(configuredMint)) throw new Error("X402_USDC_MINT is not a Solana address");
  const mint = address(configuredMint);
  const rpc = createSolanaRpc(env.SOLANA_RPC_URL ?? defaultSolanaRpcUrl(env.SOLANA_NETWORK));
  return {
    async sign({ destination, amount }) {
      const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
      return signUsdcTransfer({ payer, mint, destination: address(destination), amount, lifetime });
    },
    send: (signedTransaction, { timeoutMs }) => broadcastAndConfirm(rpc, signedTransaction, { timeoutMs }),
  };
}

export function isSolanaAddress(value: string): boolean {
  return isAddress(value);
}
