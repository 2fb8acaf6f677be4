import { createServer, type Server } from "node:http";
import {
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
  type KeyPairSigner,
} from "@solana/kit";
import { SOLANA_DEVNET_CAIP2 } from "../../lib/chains/solana/constants";
import { type LocalSolana, startLocalSolana } from "./solana/local-solana";

/**
 * The chain side of an x402 test: a local Solana cluster (devnet ids, USDC at the devnet
 * mint, so @x402/fetch's default spend controls accept it), the gateway's pay_to wallet
 * with its USDC and wSOL token accounts created, a funded fee payer, and a local SOL/USD
 * price feed in Coinbase's shape. `gatewayEnv` points a gateway at all of it.
 */
export interface X402Chain {
  solana: LocalSolana;
  payTo: KeyPairSigner;
  feePayer: KeyPairSigner;
  /** micro-USD per SOL the price feed answers (150 USD by default). */
  microUsdPerSol: bigint;
  priceUrl: string;
  /** Changes what the price feed answers from now on. */
  setSolPrice(usd: string): void;
  gatewayEnv(overrides?: Record<string, string>): Record<string, string>;
  /** A new wallet with SOL for fees and, optionally, USDC and wrapped SOL. */
  fundedWallet(funds?: {
    usdc?: bigint;
    lamports?: bigint;
    wrappedLamports?: bigint;
  }): Promise<KeyPairSigner>;
  close(): Promise<void>;
}

/** A signer together with its 64-byte secret key in base58, the form X402_FEE_PAYER_SECRET takes. */
export async function keyPairWithSecret(): Promise<{ signer: KeyPairSigner; secret: string }> {
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(getAddressEncoder().encode(signer.address), 32);
  return { signer, secret: getBase58Decoder().decode(secretKey) };
}

export async function startX402Chain(): Promise<X402Chain> {
  const solana = await startLocalSolana();
  const [{ signer: payTo }, fee] = await Promise.all([keyPairWithSecret(), keyPairWithSecret()]);
  // The gateway pre-creates its token accounts: standard payments may not create them.
  await solana.createAta(payTo.address, solana.usdcMint);
  await solana.createAta(payTo.address, solana.wsolMint);
  // A system account below the rent-exempt minimum cannot receive a tiny SOL payment, so
  // pay_to holds some SOL (on mainnet too: fund it with ~0.001 SOL before quoting SOL).
  await solana.airdrop(payTo.address, 10_000_000n);
  await solana.airdrop(fee.signer.address, 1_000_000_000n);
  let price = "150.00";
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ data: { amount: price, base: "SOL", currency: "USD" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const priceUrl = `http://127.0.0.1:${port}/v2/prices/SOL-USD/spot`;

  return {
    solana,
    payTo,
    feePayer: fee.signer,
    get microUsdPerSol() {
      const [whole = "0", fraction = ""] = price.split(".");
      return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6));
    },
    priceUrl,
    setSolPrice(usd) {
      price = usd;
    },
    gatewayEnv(overrides = {}) {
      return {
        SOLANA_NETWORK: SOLANA_DEVNET_CAIP2,
        SOLANA_RPC_URL: solana.rpcUrl,
        X402_PAY_TO: payTo.address,
        X402_FEE_PAYER_SECRET: fee.secret,
        SOL_PRICE_URL: priceUrl,
        ...overrides,
      };
    },
    async fundedWallet(funds = {}) {
      const { signer } = await keyPairWithSecret();
      const lamports = funds.lamports ?? 100_000_000n;
      if (lamports > 0n) await solana.airdrop(signer.address, lamports);
      if (funds.usdc) await solana.mintUsdc(signer.address, funds.usdc);
      if (funds.wrappedLamports) await solana.wrapSol(signer.address, funds.wrappedLamports);
      return signer;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await solana.close();
    },
  };
}
