// The payout worker in a process of its own, as it runs inside a gateway's maintenance loop:
// configured from its environment (DATABASE_URL, SOLANA_RPC_URL, HOST_PAYOUT_SECRET, …), it runs
// passes back to back until it is killed, and prints `{"ready":true}` once it is about to start.
import { openDatabase } from "../../lib/db/client";
import { loadEnv } from "../../lib/env";
import { runPayouts } from "../../lib/payouts/core/run-payouts";
import { payoutRailLoader } from "../../lib/payouts/solana/solana-payout-rail";

const env = loadEnv(process.env);
const app = {
  env,
  database: await openDatabase({ url: env.DATABASE_URL }),
  payoutRail: payoutRailLoader(env),
};
const timeoutMs = Number(process.env.PAYOUT_CONFIRM_TIMEOUT_MS ?? 20_000);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for (;;) {
  await runPayouts(app, { timeoutMs });
  await new Promise((resolve) => setTimeout(resolve, 50));
}
