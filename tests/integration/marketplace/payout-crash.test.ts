import { type Address, generateKeyPairSigner } from "@solana/kit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../../lib/db/client";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";
import { type PayoutWorkerProcess, startPayoutWorkerProcess } from "../../helpers/payout-worker-process";
import { reconcileCommand, reconcileOver } from "../../helpers/reconcile";
import { scriptedHost, serveHonestJob, withdrawAs } from "../../helpers/scripted-host";
import { seededRandom } from "../../helpers/seeded-random";
import { testSharedPostgres } from "../../helpers/services";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { keyPairWithSecret } from "../../helpers/x402-chain";

/**
 * The payout worker dies with kill -9 while payouts are in flight: once while their transfers
 * have landed and wait for confirmation, then at seeded moments of its passes (claiming,
 * signing, sending, waiting). The worker runs in a process of its own on Postgres, as it runs
 * inside each gateway's maintenance loop; after its restart every payout is paid exactly once,
 * and the ledger, the payout rows and the chain reconcile to zero. Seed SOAK_SEED (18).
 */
const postgresUrl = testSharedPostgres("The payout worker crash test").url;
const seed = Number(process.env.SOAK_SEED ?? 18);
const network = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

const usdcText = (microunits: bigint) =>
  `${microunits / 1_000_000n}.${(microunits % 1_000_000n).toString().padStart(6, "0")}`;

describe.skipIf(!postgresUrl)(`payout worker killed with kill -9 (seed ${seed})`, () => {
  let solana: LocalSolana;
  let gateway: TestGateway;
  let market: MarketplaceFixture;
  let workerEnv: Record<string, string>;
  const workers: PayoutWorkerProcess[] = [];

  beforeAll(async () => {
    solana = await startLocalSolana();
    const payout = await keyPairWithSecret();
    await solana.airdrop(payout.signer.address, 2_000_000_000n);
    await solana.mintUsdc(payout.signer.address, 1_000_000_000n);
    const env = {
      SOLANA_RPC_URL: solana.rpcUrl,
      SOLANA_NETWORK: network,
      HOST_PAYOUT_SECRET: payout.secret,
    };
    gateway = await startTestGateway({
      env: { ...env, HOST_EARNINGS_MATURITY_SECONDS: "0", HOST_WITHDRAW_MIN_MICROUNITS: "1000" },
    });
    market = createMarketplaceFixture(gateway);
    // Short waits for confirmation: a pass leaves unconfirmed payouts broadcast and starts again.
    workerEnv = { ...env, DATABASE_URL: postgresUrl ? (gateway.app.env.DATABASE_URL ?? "") : "" };
  }, 120_000);
  afterAll(async () => {
    for (const worker of workers) await worker.kill();
    await market?.cleanup();
    await gateway?.close();
    await solana?.close();
  });

  const startWorker = async () => {
    const worker = await startPayoutWorkerProcess({ ...workerEnv, PAYOUT_CONFIRM_TIMEOUT_MS: "400" });
    workers.push(worker);
    return worker;
  };
  const statuses = async () =>
    (
      await queryRows<{ status: string }>(
        gateway.app.database.db,
        sql`SELECT status FROM host_payouts ORDER BY created_at`,
      )
    ).map((row) => row.status);

  it("a payout in flight at a kill is paid once, and the ledger matches the chain after the restart", async () => {
    const next = seededRandom(seed);
    const { host, agent } = await scriptedHost(gateway, market);
    const token = await gateway.createFundedToken(100_000_000n);
    // Four jobs served through the marketplace: 4 × 3,200 microunits earned.
    for (let job = 0; job < 4; job += 1) await serveHonestJob(gateway, agent, token);
    agent.close();
    const payouts: { amount: bigint; wallet: Address }[] = [];
    const withdraw = async (amount: bigint, key: string) => {
      const wallet = (await generateKeyPairSigner()).address;
      const response = await withdrawAs(gateway, host, usdcText(amount), key, wallet);
      expect(response.status).toBe(202);
      payouts.push({ amount, wallet });
    };
    const onChain = () =>
      Promise.all(payouts.map((one) => solana.getTokenBalance(one.wallet, solana.usdcMint)));

    // The transfers land, their confirmations are held: the worker dies waiting for them.
    for (let index = 0; index < 3; index += 1) await withdraw(1_000n + BigInt(index) * 500n, `held-${index}`);
    solana.holdConfirmations();
    let worker = await startWorker();
    await expect.poll(onChain, { timeout: 30_000 }).toEqual(payouts.map((one) => one.amount));
    await worker.kill();
    expect(await statuses()).toEqual(["broadcast", "broadcast", "broadcast"]);
    solana.releaseConfirmations();

    // More payouts, and the worker killed at seeded moments of its passes, four times over.
    for (let index = 0; index < 4; index += 1)
      await withdraw(1_000n + BigInt(index) * 300n, `crash-${index}`);
    for (let kill = 0; kill < 4; kill += 1) {
      worker = await startWorker();
      await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 1_500)));
      await worker.kill();
    }
    // Back for good: everything finishes, each payout paid exactly once.
    worker = await startWorker();
    await expect.poll(statuses, { timeout: 60_000 }).toEqual(payouts.map(() => "confirmed"));
    await worker.kill();
    expect(await onChain()).toEqual(payouts.map((one) => one.amount));

    const report = await reconcileOver(gateway);
    expect(report.checked).toContain("solana");
    expect(report.differences).toEqual([]);
    const command = await reconcileCommand(workerEnv);
    expect(command.report.differences).toEqual([]);
    expect(command.code).toBe(0);
  }, 180_000);
});
