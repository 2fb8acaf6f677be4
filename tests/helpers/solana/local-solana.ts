import { type Address, createSolanaRpc, type KeyPairSigner, type Signature } from "@solana/kit";
import { LiteSVM } from "litesvm";
import { deriveAssociatedTokenAddress } from "../../../lib/chains/solana/associated-token-address";
import { USDC_DECIMALS, USDC_DEVNET_MINT, WSOL_MINT } from "../../../lib/chains/solana/constants";
import { createFaucet } from "./faucet";
import { startJsonRpcServer } from "./json-rpc-server";
import { LocalChain } from "./local-chain";
import { createRpcMethods } from "./rpc-methods";
import { mintAccount, readTokenAccount } from "./token-accounts";

/**
 * A local Solana cluster owned by the test run: LiteSVM behind a JSON-RPC server on
 * 127.0.0.1, with a 6-decimal USDC mint planted at the real devnet USDC address (so
 * @x402/svm's default-asset tables and @x402/fetch spend controls accept it) and the
 * wrapped-SOL native mint. Point `createSolanaRpc(rpcUrl)` or any x402 client at it.
 *
 * Semantics that differ from a validator are listed in README.md beside this file.
 */

export interface LocalSolanaOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
}

export interface LocalSolana {
  rpcUrl: string;
  /** A kit RPC client already pointed at `rpcUrl`. */
  rpc: ReturnType<typeof createSolanaRpc>;
  svm: LiteSVM;
  chain: LocalChain;
  usdcMint: Address;
  wsolMint: Address;
  /** Pays for seeding and is the USDC mint authority. */
  faucet: KeyPairSigner;
  airdrop(owner: Address, lamports: bigint): Promise<Signature>;
  /** Mints USDC (atomic units) into the owner's ATA, creating it if needed; returns the ATA. */
  mintUsdc(owner: Address, amount: bigint): Promise<Address>;
  /** Mints `amount` of any mint the faucet is the authority of (plant one with `mintAccount`). */
  mintTokens(owner: Address, mint: Address, amount: bigint): Promise<Address>;
  createAta(owner: Address, mint: Address): Promise<Address>;
  /** Funds the owner's wSOL ATA with `lamports` of wrapped SOL; returns the ATA. */
  wrapSol(owner: Address, lamports: bigint): Promise<Address>;
  getBalance(address: Address): bigint;
  /** Token balance of the owner's ATA for `mint` (0 when it does not exist). */
  getTokenBalance(owner: Address, mint: Address): Promise<bigint>;
  /** Pins the block time of every following slot; tests use it to age transfers. */
  setBlockTime(time: Date | number): void;
  /** Block time follows the wall clock again, shifted by `offsetSeconds`. */
  useWallClock(offsetSeconds?: number): void;
  /** Invalidates every blockhash handed out so far (moves 151 slots ahead). */
  expireBlockhashes(): void;
  holdConfirmations(): void;
  releaseConfirmations(): void;
  close(): Promise<void>;
}

export async function startLocalSolana(options: LocalSolanaOptions = {}): Promise<LocalSolana> {
  const svm = new LiteSVM().withNativeMints();
  const chain = new LocalChain(svm);
  const { faucet, signer } = await createFaucet(chain);
  svm.setAccount(
    mintAccount({
      address: USDC_DEVNET_MINT,
      decimals: USDC_DECIMALS,
      supply: 0n,
      mintAuthority: faucet.address,
      lamports: svm.minimumBalanceForRentExemption(82n),
    }),
  );
  const server = await startJsonRpcServer(createRpcMethods(chain, faucet), {
    host: options.host,
    port: options.port,
  });

  return {
    rpcUrl: server.url,
    rpc: createSolanaRpc(server.url),
    svm,
    chain,
    usdcMint: USDC_DEVNET_MINT,
    wsolMint: WSOL_MINT,
    faucet: signer,
    airdrop: (owner, lamports) => faucet.airdrop(owner, lamports),
    mintUsdc: (owner, amount) => faucet.mintTokens(owner, USDC_DEVNET_MINT, amount),
    mintTokens: (owner, mint, amount) => faucet.mintTokens(owner, mint, amount),
    createAta: (owner, mint) => faucet.createAta(owner, mint),
    wrapSol: (owner, lamports) => faucet.wrapSol(owner, lamports),
    getBalance: (address) => BigInt(svm.getBalance(address) ?? 0n),
    async getTokenBalance(owner, mint) {
      const ata = await deriveAssociatedTokenAddress(owner, mint);
      return readTokenAccount(svm.getAccount(ata))?.amount ?? 0n;
    },
    setBlockTime: (time) =>
      chain.setBlockTime(BigInt(typeof time === "number" ? time : Math.floor(time.getTime() / 1000))),
    useWallClock: (offsetSeconds = 0) => chain.useWallClock(BigInt(offsetSeconds)),
    expireBlockhashes: () => chain.expireBlockhashes(),
    holdConfirmations: () => chain.holdConfirmations(),
    releaseConfirmations: () => chain.releaseConfirmations(),
    close: () => server.close(),
  };
}
