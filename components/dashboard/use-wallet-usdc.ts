"use client";

import type { SolanaOptions } from "@pod-gateway/contracts/dashboard-api";
import { useConnection, useWallet } from "@solana/wallet-adapter-react";
import { PublicKey } from "@solana/web3.js";
import { useEffect, useState } from "react";
import { payerUsdcAccount } from "./deposit-transaction";

/** The connected wallet's address and its USDC (undefined while it is read; 0 without a USDC account). */
export function useWalletUsdc(options: SolanaOptions): {
  payer: string | undefined;
  usdc: bigint | undefined;
} {
  const { connection } = useConnection();
  const { publicKey } = useWallet();
  const payer = publicKey?.toBase58();
  const [usdc, setUsdc] = useState<bigint | undefined>(undefined);
  useEffect(() => {
    if (payer === undefined) return;
    setUsdc(undefined);
    payerUsdcAccount(options, payer)
      .then((account) => connection.getTokenAccountBalance(new PublicKey(account)))
      .then((result) => setUsdc(BigInt(result.value.amount)))
      .catch(() => setUsdc(0n));
  }, [payer, options, connection]);
  return { payer, usdc };
}
