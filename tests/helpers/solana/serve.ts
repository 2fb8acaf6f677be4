import { parseArgs } from "node:util";
import { address } from "@solana/kit";
import { startLocalSolana } from "./local-solana";

/**
 * Standalone local chain for offline development:
 *   npx tsx tests/helpers/solana/serve.ts [--port 8899] [--fund <wallet>]... [--usdc 100000000]
 * Prints the RPC URL, funds each `--fund` wallet with 10 SOL and `--usdc` atomic USDC,
 * and runs until SIGINT/SIGTERM.
 */

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8899" },
    host: { type: "string", default: "127.0.0.1" },
    fund: { type: "string", multiple: true, default: [] },
    usdc: { type: "string", default: "100000000" },
  },
});

const solana = await startLocalSolana({ port: Number(values.port), host: values.host });
for (const wallet of values.fund) {
  const owner = address(wallet);
  await solana.airdrop(owner, 10_000_000_000n);
  await solana.mintUsdc(owner, BigInt(values.usdc));
  console.log(`funded ${owner}: 10 SOL, ${values.usdc} USDC atomic units`);
}
console.log(`local solana rpc: ${solana.rpcUrl}`);
console.log(`usdc mint: ${solana.usdcMint} (6 decimals); wsol mint: ${solana.wsolMint}`);

const shutdown = () => {
  solana.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
