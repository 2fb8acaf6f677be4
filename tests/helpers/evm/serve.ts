import { parseArgs } from "node:util";
import { getAddress } from "viem";
import { startLocalEvm } from "./local-evm";

/**
 * Standalone local EVM chain for offline trials:
 *   npx tsx tests/helpers/evm/serve.ts [--port 8545] [--fund <address>]... [--usdc 100000000]
 * Starts anvil with Base's chain id and Circle's FiatToken v2.2 at Base's USDC address, mints
 * `--usdc` atomic USDC to each `--fund` address, prints a funded payer key and a settler key
 * with ETH for gas, and runs until SIGINT/SIGTERM.
 */

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8545" },
    fund: { type: "string", multiple: true, default: [] },
    usdc: { type: "string", default: "100000000" },
  },
});

const evm = await startLocalEvm({ port: Number(values.port) });
for (const address of values.fund) {
  await evm.mintUsdc(getAddress(address), BigInt(values.usdc));
  console.log(`funded ${address}: ${values.usdc} USDC atomic units`);
}
const payer = await evm.fundedAccount({ usdc: BigInt(values.usdc) });
const settler = await evm.fundedAccount({ wei: 10n ** 18n });
console.log(`local evm rpc: ${evm.rpcUrl} (${evm.network})`);
console.log(`usdc: ${evm.usdc} (FiatToken v2.2, "USD Coin" version 2, 6 decimals)`);
console.log(`payer: ${payer.account.address} key ${payer.key} (${values.usdc} USDC, no ETH)`);
console.log(`settler: ${settler.account.address} key ${settler.key} (1 ETH for gas; X402_BASE_SETTLER_KEY)`);

const shutdown = () => {
  evm.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
