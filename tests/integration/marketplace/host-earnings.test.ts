import * as hostApi from "@pod-gateway/contracts/host-api";
import { address, type Base64EncodedWireTransaction, generateKeyPairSigner } from "@solana/kit";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { queryRows } from "../../../lib/db/client";
import { finishRetirements, returnDueBonds } from "../../../lib/hosts/retire-host";
import { ensureAccount, getAccountBalance } from "../../../lib/ledger/accounts";
import { postTransaction } from "../../../lib/ledger/post-transaction";
import { runPayouts } from "../../../lib/payouts/core/run-payouts";
import { signUsdcTransfer } from "../../../lib/payouts/solana/usdc-transfer";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import {
  createMarketplaceFixture,
  type MarketplaceFixture,
  type TestHost,
} from "../../helpers/marketplace-fixture";
import { reconcileCommand, reconcileOver, removeLedgerTransaction } from "../../helpers/reconcile";
import { b64, openAiDelta, openAiUsage } from "../../helpers/scripted-agent";
import { scriptedHost, serveHonestJob, withdrawAs } from "../../helpers/scripted-host";
import { type LocalSolana, startLocalSolana } from "../../helpers/solana/local-solana";
import { keyPairWithSecret } from "../../helpers/x402-chain";

let solana: LocalSolana;
let gateway: TestGateway;
let market: MarketplaceFixture;
let payout: Awaited<ReturnType<typeof keyPairWithSecret>>;

beforeAll(async () => {
  solana = await startLocalSolana();
  payout = await keyPairWithSecret();
  await solana.airdrop(payout.signer.address, 2_000_000_000n);
  await solana.mintUsdc(payout.signer.address, 1_000_000_000n);
  gateway = await startTestGateway({
    env: {
      // Earnings are withdrawable at once here; maturity has its own tests (slashing.test.ts).
      HOST_EARNINGS_MATURITY_SECONDS: "0",
      SOLANA_RPC_URL: solana.rpcUrl,
      SOLANA_NETWORK: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      HOST_PAYOUT_SECRET: payout.secret,
      HOST_WITHDRAW_MIN_MICROUNITS: "1000",
      HOST_WITHDRAW_DAILY_CAP_MICROUNITS: "50000",
      HOST_WITHDRAW_REVIEW_MICROUNITS: "20000",
      HOST_BOND_COOLDOWN_SECONDS: "0",
    },
  });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  await market.cleanup();
});
afterAll(async () => {
  await gateway?.close();
  await solana?.close();
});

/** A host whose scripted agent served one streamed job of 1000 prompt / 200 completion tokens. */
async function hostWithEarnings(): Promise<{ host: TestHost; earned: bigint }> {
  const { host, agent } = await scriptedHost(gateway, market);
  await serveHonestJob(gateway, agent, await gateway.createFundedToken(100_000_000n));
  agent.close();
  // 1000 × 2 + 200 × 10 = 4000 microunits charged; 80% = 3200 to the host.
  return { host, earned: 3200n };
}

/**
 * Parses a real answer with its contract schema and proves nothing was left out of it: a field the
 * handler sends that the schema does not name would be stripped, and the comparison fails.
 */
function expectContract<Schema extends z.ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
  const parsed = schema.parse(body);
  expect(parsed).toStrictEqual(body);
  return parsed;
}

function withdraw(host: TestHost, amount: string, key: string, destination?: string) {
  return withdrawAs(gateway, host, amount, key, destination);
}

describe("host earnings and cashout", () => {
  it("balance and transactions show the 80% credit of a settled job", async () => {
    const { host, earned } = await hostWithEarnings();
    const balance = (await (await host.call("GET", "/v1/host/balance")).json()) as Record<string, unknown>;
    expect(balance).toMatchObject({
      usdc_balance: Number(earned),
      withdrawable_usdc_balance: Number(earned),
    });
    const list = (await (await host.call("GET", "/v1/host/transactions")).json()) as {
      data: Array<{ kind: string; amount_microunits: number; model: string }>;
    };
    expect(list.data[0]).toMatchObject({
      kind: "inference",
      amount_microunits: Number(earned),
      model: "gpt-4o",
    });
  });

  it("withdraws to a wallet on the chain: requested → broadcast → confirmed, once per idempotency key", async () => {
    const { host, earned } = await hostWithEarnings();
    const wallet = await generateKeyPairSigner();
    const first = await withdraw(host, "0.002", "w-1", wallet.address);
    expect(first.status).toBe(202);
    const payout = (await first.json()) as { id: string; status: string };
    expect(payout.status).toBe("requested");
    const replay = await withdraw(host, "0.002", "w-1", wallet.address);
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { id: string }).id).toBe(payout.id);
    // The same key for another amount or another wallet is refused, and pays nothing more.
    const otherAmount = await withdraw(host, "0.003", "w-1", wallet.address);
    expect(otherAmount.status).toBe(409);
    expect(await otherAmount.text()).toContain("already used");
    expect((await withdraw(host, "0.002", "w-1")).status).toBe(409);

    expect(await runPayouts(gateway.app)).toBe(1);
    expect(await solana.getTokenBalance(wallet.address, solana.usdcMint)).toBe(2000n);
    const balance = (await (await host.call("GET", "/v1/host/balance")).json()) as {
      usdc_balance: number;
      payouts: Array<{ id: string; status: string; signature: string }>;
    };
    expect(balance.usdc_balance).toBe(Number(earned) - 2000);
    expect(balance.payouts[0]).toMatchObject({ id: payout.id, status: "confirmed" });
    expect(await runPayouts(gateway.app)).toBe(0);
    expect(await solana.getTokenBalance(wallet.address, solana.usdcMint)).toBe(2000n);
  });

  it("every host API answer the provider page reads is its contract, field for field", async () => {
    // As hostWithEarnings, with the agent kept connected so its view is read too.
    const { host, agent } = await scriptedHost(gateway, market);
    try {
      await serveHonestJob(gateway, agent, await gateway.createFundedToken(100_000_000n));
      const wallet = await generateKeyPairSigner();
      const withdrawal = await withdraw(host, "0.001", "contract", wallet.address);
      expectContract(hostApi.hostPayoutSchema, await withdrawal.json());
      expect(await runPayouts(gateway.app)).toBe(1);
      const read = async (path: string) => (await host.call("GET", path)).json();
      const agentView = expectContract(hostApi.hostAgentSchema, await read("/v1/host/agent"));
      expect(agentView).toMatchObject({ connected: true, models: [{ model: "gpt-4o" }] });
      expectContract(hostApi.hostProfileSchema, await read("/v1/host/profile"));
      const balance = expectContract(hostApi.hostBalanceSchema, await read("/v1/host/balance"));
      // A confirmed payout: its signature and explorer page are filled in, as the page shows them.
      expect(balance).toMatchObject({
        usdc_balance: 3200 - 1000,
        payouts: [{ status: "confirmed", signature: expect.any(String), explorer_url: expect.any(String) }],
      });
      const page = expectContract(
        hostApi.hostTransactionPageSchema,
        await read("/v1/host/transactions?limit=1"),
      );
      expect(page.next_before).toEqual(expect.any(String));
      expectContract(hostApi.hostListingsSchema, await read("/v1/host/listings"));
    } finally {
      agent.close();
    }
  });

  it("refuses below the minimum, above the balance, and never pays more than the balance under concurrency", async () => {
    const { host, earned } = await hostWithEarnings();
    expect((await withdraw(host, "0.0001", "small")).status).toBe(400);
    const tooMuch = await withdraw(host, "0.004", "big");
    expect(tooMuch.status).toBe(402);
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => withdraw(host, "0.001", `parallel-${i}`)),
    );
    const accepted = attempts.filter((response) => response.status === 202).length;
    expect(accepted).toBe(Number(earned / 1000n));
    expect(attempts.filter((response) => response.status === 402)).toHaveLength(6 - accepted);
    const providerAccount = await ensureAccount(gateway.app.database.db, "provider", host.providerId);
    expect((await getAccountBalance(gateway.app.database.db, providerAccount)).balance).toBe(
      earned - BigInt(accepted) * 1000n,
    );
  });

  it("a crash between broadcast and confirmation re-sends the same transaction, never a second one", async () => {
    const { host } = await hostWithEarnings();
    const wallet = await generateKeyPairSigner();
    await withdraw(host, "0.003", "crash", wallet.address);
    solana.holdConfirmations();
    // The worker gives up waiting (as a crash would): the payout stays broadcast with its signature.
    expect(await runPayouts(gateway.app, { timeoutMs: 300 })).toBe(0);
    const pending = (await (await host.call("GET", "/v1/host/balance")).json()) as {
      payouts: Array<{ status: string; signature: string }>;
    };
    expect(pending.payouts[0]?.status).toBe("broadcast");
    solana.releaseConfirmations();
    expect(await runPayouts(gateway.app)).toBeGreaterThanOrEqual(1);
    const done = (await (await host.call("GET", "/v1/host/balance")).json()) as {
      payouts: Array<{ status: string; signature: string }>;
    };
    expect(done.payouts[0]).toMatchObject({ status: "confirmed", signature: pending.payouts[0]?.signature });
    expect(await solana.getTokenBalance(wallet.address, solana.usdcMint)).toBe(3000n);
  });

  it("a large withdrawal in the first month waits for admin approval", async () => {
    const { host } = await hostWithEarnings();
    const providerAccount = await ensureAccount(gateway.app.database.db, "provider", host.providerId);
    const source = await ensureAccount(gateway.app.database.db, "external", "test-earnings");
    await gateway.app.database.db.transaction((tx) =>
      postTransaction(tx, {
        kind: "test_credit",
        entries: [
          { accountId: source, amount: -30_000n },
          { accountId: providerAccount, amount: 30_000n },
        ],
      }),
    );
    const response = await withdraw(host, "0.03", "large");
    const payout = (await response.json()) as { id: string; status: string };
    expect(payout.status).toBe("awaiting_approval");
    expect(await runPayouts(gateway.app)).toBe(0);
    const approve = (authorization: string) =>
      fetch(`${gateway.baseUrl}/v1/admin/payouts/${payout.id}/approve`, {
        method: "POST",
        headers: { authorization },
      });
    // The admin credential is the Bearer scheme only, as on every admin route.
    expect((await approve(testAdminToken)).status).toBe(401);
    const approved = await approve(`Bearer ${testAdminToken}`);
    expect(approved.status).toBe(200);
    expect(await runPayouts(gateway.app)).toBe(1);
  });
});

describe("retirement", () => {
  it("drains in-flight jobs, leaves routing, and returns the bond after the cooldown", async () => {
    const host = await market.enroll();
    const _profile = (await (await host.call("GET", "/v1/host/profile")).json()) as {
      metadata: { enrollment_code: string };
    };
    // The bond as the deposit watcher books it: 50 USDC in the host's bond account.
    const bond = await ensureAccount(gateway.app.database.db, "bond", host.providerId);
    const deposits = await ensureAccount(gateway.app.database.db, "external", "test-bond-deposits");
    await gateway.app.database.db.transaction((tx) =>
      postTransaction(tx, {
        kind: "bond_deposit",
        entries: [
          { accountId: deposits, amount: -50_000_000n },
          { accountId: bond, amount: 50_000_000n },
        ],
      }),
    );
    const { agent } = await scriptedHost(gateway, market, {
      host,
      model: "gpt-4o-mini",
      input: 100_000,
      output: 400_000,
    });
    const token = await gateway.createFundedToken(10_000_000n);
    const pending = fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "marketplace-only" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    const job = await agent.next("job");
    agent.send({ type: "job_chunk", job_id: job.job_id, data: b64(openAiDelta("still ")) });

    const retire = await host.call("POST", "/v1/host/retire");
    expect(retire.status).toBe(202);
    // Out of routing at once, while the running job continues.
    const refused = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "marketplace-only" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(refused.status).toBe(503);
    expect(await finishRetirements(gateway.app)).toBe(0);
    agent.send({
      type: "job_chunk",
      job_id: job.job_id,
      data: b64(`${openAiDelta("served")}${openAiUsage(5, 2)}data: [DONE]\n\n`),
    });
    agent.send({ type: "job_done", job_id: job.job_id });
    expect(await (await pending).text()).toContain("served");
    await expect.poll(() => finishRetirements(gateway.app)).toBe(1);
    expect((await agent.closed).code).toBe(4003);
    const profileAfter = (await (await host.call("GET", "/v1/host/profile")).json()) as { status: string };
    expect(profileAfter.status).toBe("retired");

    const hostWallet = address("GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS");
    const walletBefore = await solana.getTokenBalance(hostWallet, solana.usdcMint);
    expect(await returnDueBonds(gateway.app)).toBe(1);
    expect(await runPayouts(gateway.app)).toBe(1);
    expect((await solana.getTokenBalance(hostWallet, solana.usdcMint)) - walletBefore).toBe(50_000_000n);
    expect((await getAccountBalance(gateway.app.database.db, bond)).balance).toBe(0n);
  });
});

describe("payout reconciliation", () => {
  it("matches payouts with the chain and the books; a lost booking, a forged, faked or removed row and a payment the books never made are reported", async () => {
    const db = gateway.app.database.db;
    const { host } = await hostWithEarnings();
    const wallet = await generateKeyPairSigner();
    expect((await withdraw(host, "0.003", "reconciled", wallet.address)).status).toBe(202);
    expect(await runPayouts(gateway.app)).toBe(1);
    const clean = await reconcileOver(gateway);
    expect(clean.checked).toContain("solana");
    expect(clean.differences).toEqual([]);
    const postgres = gateway.app.env.DATABASE_URL;
    const commandEnv = {
      ...(postgres ? { DATABASE_URL: postgres } : {}),
      SOLANA_RPC_URL: solana.rpcUrl,
      SOLANA_NETWORK: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      HOST_PAYOUT_SECRET: payout.secret,
    };
    // The command needs a database another process can open: Postgres only.
    if (postgres) expect((await reconcileCommand(commandEnv)).code).toBe(0);
    const [paid] = await queryRows<{ id: string; signature: string; host_id: string }>(
      db,
      sql`SELECT id::text AS id, signature, host_id::text AS host_id FROM host_payouts WHERE idempotency_key = 'reconciled'`,
    );
    if (!paid) throw new Error("no payout row");
    const reference = `payout ${paid.id} (${paid.signature})`;
    const differencesOf = async () => (await reconcileOver(gateway)).differences;

    // The confirmation's booking lost: paid on the chain, never taken out of the payouts in flight.
    const restore = await removeLedgerTransaction(db, `payout-confirmed:${paid.id}`);
    try {
      expect(await differencesOf()).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ source: "ledger", reference, microunits: "3000" }),
        ]),
      );
    } finally {
      await restore();
    }

    // A forged payout row: confirmed, for a transaction the chain never saw, and never booked.
    const forged = "4".repeat(87);
    await db.execute(
      sql`INSERT INTO host_payouts (host_id, kind, amount, destination, idempotency_key, status, signature)
          VALUES (${paid.host_id}::uuid, 'withdrawal', 7000, ${wallet.address}, 'forged', 'confirmed', ${forged})`,
    );
    try {
      const differences = await differencesOf();
      expect(differences).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ source: "solana", microunits: "-7000" }),
          expect.objectContaining({ source: "ledger", microunits: "7000" }),
        ]),
      );
      expect(differences.every((one) => one.reference.includes(forged))).toBe(true);
    } finally {
      await db.execute(sql`DELETE FROM host_payouts WHERE idempotency_key = 'forged'`);
    }

    // The real row faked as failed, then removed: the books say paid, the payout table does not.
    for (const tamper of ["faked", "removed"] as const) {
      await db.execute(
        sql`CREATE TABLE payout_backup AS SELECT * FROM host_payouts WHERE id = ${paid.id}::uuid`,
      );
      await db.execute(
        tamper === "faked"
          ? sql`UPDATE host_payouts SET status = 'failed' WHERE id = ${paid.id}::uuid`
          : sql`DELETE FROM host_payouts WHERE id = ${paid.id}::uuid`,
      );
      try {
        expect(await differencesOf(), tamper).toEqual([
          expect.objectContaining({ source: "ledger", reference, microunits: "-3000" }),
        ]);
      } finally {
        await db.execute(sql`DELETE FROM host_payouts WHERE id = ${paid.id}::uuid`);
        await db.execute(sql`INSERT INTO host_payouts SELECT * FROM payout_backup`);
        await db.execute(sql`DROP TABLE payout_backup`);
      }
    }
    expect(await differencesOf()).toEqual([]);

    // The payout wallet pays the same wallet again, outside any payout (last: the chain keeps it).
    const { value: lifetime } = await solana.rpc.getLatestBlockhash().send();
    const twice = await signUsdcTransfer({
      payer: payout.signer,
      mint: solana.usdcMint,
      destination: wallet.address,
      amount: 3000n,
      lifetime,
    });
    await solana.rpc
      .sendTransaction(twice.wireBase64 as Base64EncodedWireTransaction, { encoding: "base64" })
      .send();
    const report = await reconcileOver(gateway);
    expect(report.differences).toEqual([
      expect.objectContaining({ source: "solana", reference: twice.signature, microunits: "3000" }),
    ]);
    expect(report.unexplained_microunits).toBe("3000");
    if (postgres) {
      const run = await reconcileCommand(commandEnv);
      expect(run.code).toBe(1);
      expect(run.report.differences).toEqual([expect.objectContaining({ reference: twice.signature })]);
    }
  }, 60_000);
});
