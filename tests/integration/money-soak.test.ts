import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLANA_DEVNET_CAIP2 } from "../../lib/chains/solana/constants";
import { queryRows } from "../../lib/db/client";
import { scanDeposits } from "../../lib/deposits/solana/deposit-watcher";
import { collectOpenReceivables } from "../../lib/ledger/receivables";
import { runPayouts } from "../../lib/payouts/core/run-payouts";
import { startTestGateway, type TestGateway } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";
import {
  createMarketplaceFixture,
  type MarketplaceFixture,
  type TestHost,
} from "../helpers/marketplace-fixture";
import { reconcileOver } from "../helpers/reconcile";
import { withdrawAs } from "../helpers/scripted-host";
import { seededRandom } from "../helpers/seeded-random";
import { type LocalSolana, startLocalSolana } from "../helpers/solana/local-solana";
import { sendUsdcWithMemo } from "../helpers/solana/usdc-deposit";
import { type FakeStripe, startFakeStripe } from "../helpers/stripe/fake-stripe";
import { keyPairWithSecret } from "../helpers/x402-chain";

/**
 * A seeded, randomized run of the money paths at once, as users and Stripe would mix them:
 * card top-ups, partial refunds, disputes won and lost, operator credits, USDC deposits on a
 * local Solana chain, and bursts of plain and streamed requests (leases on, as `npm start`),
 * some of them on tokens a refund has just left owing. Part of the traffic is served by two
 * marketplace hosts, whose earnings they withdraw to wallets on the same chain as hosts would
 * and as attackers would: a reused Idempotency-Key with another amount, more than was earned,
 * withdrawals racing for the same earnings, a suspended host cashing out, and a payout worker
 * that stops between broadcast and confirmation. It ends with the ledger, Stripe and the chain
 * (deposits in, payouts out) reconciled to zero unexplained microunits. Bounded: SOAK_STEPS steps (60 by default),
 * seed SOAK_SEED (18 by default; a failure prints the seed to replay it).
 */
const seed = Number(process.env.SOAK_SEED ?? 18);
const steps = Math.min(Number(process.env.SOAK_STEPS ?? 60), 400);
const webhookSecret = "whsec_test_soak";

let stripe: FakeStripe;
let solana: LocalSolana;
let gateway: TestGateway;
let payer: KeyPairSigner;
let depositOwner: string;
let market: MarketplaceFixture;

beforeAll(async () => {
  [stripe, solana] = await Promise.all([startFakeStripe({ webhookSecret }), startLocalSolana()]);
  depositOwner = (await generateKeyPairSigner()).address;
  payer = await generateKeyPairSigner();
  await solana.airdrop(payer.address, 1_000_000_000n);
  await solana.mintUsdc(payer.address, 10_000_000_000n);
  await solana.createAta(depositOwner as never, solana.usdcMint);
  const payoutWallet = await keyPairWithSecret();
  await solana.airdrop(payoutWallet.signer.address, 1_000_000_000n);
  await solana.mintUsdc(payoutWallet.signer.address, 1_000_000_000n);
  gateway = await startTestGateway({
    lease: true,
    env: {
      STRIPE_SECRET_KEY: "sk_test_soak",
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PUBLISHABLE_KEY: "pk_test_soak",
      STRIPE_API_BASE: stripe.apiBase,
      SOLANA_DEPOSIT_ADDRESS: depositOwner,
      SOLANA_RPC_URL: solana.rpcUrl,
      SOLANA_NETWORK: SOLANA_DEVNET_CAIP2,
      SOLANA_DEPOSIT_COMMITMENT: "confirmed",
      BALANCE_LEASE_IDLE_MS: "300",
      HOST_PAYOUT_SECRET: payoutWallet.secret,
      // Earnings are withdrawable at once (maturity has its own tests, slashing.test.ts); small
      // amounts so that a few requests earn a withdrawal; larger ones wait for an admin's approval.
      HOST_EARNINGS_MATURITY_SECONDS: "0",
      HOST_WITHDRAW_MIN_MICROUNITS: "1000",
      HOST_WITHDRAW_REVIEW_MICROUNITS: "8000",
    },
  });
  stripe.setWebhookUrl(`${gateway.baseUrl}/v1/webhooks/stripe`);
  market = createMarketplaceFixture(gateway);
}, 120_000);
afterAll(async () => {
  await market?.cleanup();
  await gateway?.close();
  await Promise.all([stripe?.close(), solana?.close()]);
});

/** A marketplace host of the soak and the wallet it withdraws to. */
interface SoakHost {
  host: TestHost;
  wallet: Address;
}

interface Withdrawal {
  host: SoakHost;
  key: string;
  amount: bigint;
  id: string;
}

interface HostBalance {
  usdc_balance: number;
  withdrawable_usdc_balance: number;
  payouts: { id: string; status: string; amount_microunits: number }[];
}

/** An amount as `POST /v1/host/withdraw` reads it: a decimal USDC string. */
const usdcText = (microunits: bigint) =>
  `${microunits / 1_000_000n}.${(microunits % 1_000_000n).toString().padStart(6, "0")}`;

async function balanceOf(soakHost: SoakHost): Promise<HostBalance> {
  const response = await soakHost.host.call("GET", "/v1/host/balance");
  expect(response.status).toBe(200);
  return (await response.json()) as HostBalance;
}

/** Settlements written (the lease batches them), so a host's balance is what it earned. */
const settled = async () => {
  await gateway.app.leases?.flush(10_000);
};

describe(`money soak (seed ${seed}, ${steps} steps)`, () => {
  it("mixed funding, refunds, disputes, deposits, spending and host withdrawals end reconciled to zero unexplained microunits", async () => {
    const next = seededRandom(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const tokens = await Promise.all(Array.from({ length: 3 }, () => gateway.register()));
    // Two hosts sell gpt-4o at 2 / 10 USDC per 1M tokens (under the centralized price, the cap):
    // the traffic routed to them earns them money.
    const hosts: SoakHost[] = [];
    for (let index = 0; index < 2; index += 1) {
      const { host } = await market.agent({
        offers: [{ model: "gpt-4o", input: 2_000_000, output: 10_000_000, maxConcurrent: 16 }],
      });
      hosts.push({ host, wallet: (await generateKeyPairSigner()).address });
    }
    const paidSessions: { token: string; sessionId: string }[] = [];
    const disputed: string[] = [];
    const withdrawals: Withdrawal[] = [];
    const counts: Record<string, number> = {};
    const done: Record<string, number> = {};
    const deadline = Date.now() + 150_000;

    /** A burst of requests: gpt-4o-mini (centralized) by default, or gpt-4o to the marketplace. */
    const spend = async (token: string, label: string, headers?: Record<string, string>) => {
      const client = inferenceClient(gateway, token);
      const model = headers ? "gpt-4o" : "gpt-4o-mini";
      const burst = 1 + Math.floor(next() * 8);
      const statuses = await Promise.all(
        Array.from({ length: burst }, async (_, index) => {
          const response = await client.chat({
            model,
            stream: next() < 0.5,
            maxTokens: 10 + Math.floor(next() * 3_000),
            content: `soak ${label}.${index} [fake:tokens=${1 + Math.floor(next() * 60)}]`,
            ...(headers ? { headers } : {}),
          });
          await response.text();
          return response.status;
        }),
      );
      // Served, or refused because the token is empty or owes a refund: never anything else.
      for (const status of statuses) expect([200, 402]).toContain(status);
    };

    /** Requests pinned to one host until it can withdraw at least `atLeast`, on a token of their own. */
    const earn = async (soakHost: SoakHost, atLeast: bigint) => {
      const token = await gateway.createFundedToken(100_000_000n);
      for (let round = 0; round < 30; round += 1) {
        await settled();
        if (BigInt((await balanceOf(soakHost)).withdrawable_usdc_balance) >= atLeast) return;
        await spend(token, `earn ${round}`, { "X-Pod-Providers": soakHost.host.providerId });
      }
      throw new Error(`host ${soakHost.host.providerId} never earned ${atLeast}`);
    };

    const hostile = {
      /** Some of what the host may withdraw, to its wallet: accepted (202), queued or held for review. */
      async withdraw(soakHost: SoakHost, step: number): Promise<boolean> {
        await settled();
        const available = BigInt((await balanceOf(soakHost)).withdrawable_usdc_balance);
        if (available === 0n) return false;
        const amount = 1_000n + BigInt(Math.floor(next() * Number(available - 1_000n + 1n)));
        const key = `withdraw-${step}`;
        const response = await withdrawAs(gateway, soakHost.host, usdcText(amount), key, soakHost.wallet);
        expect(response.status).toBe(202);
        withdrawals.push({ host: soakHost, key, amount, id: ((await response.json()) as { id: string }).id });
        return true;
      },
      /** A retry with the same key is the first payout; the same key for another amount is a 409 and pays nothing. */
      async withdraw_reused_key(): Promise<boolean> {
        if (withdrawals.length === 0) return false;
        const first = pick(withdrawals);
        const same = await withdrawAs(
          gateway,
          first.host.host,
          usdcText(first.amount),
          first.key,
          first.host.wallet,
        );
        expect(same.status).toBe(200);
        expect(((await same.json()) as { id: string }).id).toBe(first.id);
        const other = first.amount + 1n + BigInt(Math.floor(next() * 5_000));
        const reused = await withdrawAs(
          gateway,
          first.host.host,
          usdcText(other),
          first.key,
          first.host.wallet,
        );
        expect(reused.status).toBe(409);
        return true;
      },
      /** More than the host has earned and not withdrawn: 402, nothing queued. */
      async withdraw_too_much(soakHost: SoakHost, step: number): Promise<boolean> {
        await settled();
        const balance = BigInt((await balanceOf(soakHost)).usdc_balance);
        const amount = balance + 1_000n + BigInt(Math.floor(next() * 5_000_000));
        const response = await withdrawAs(
          gateway,
          soakHost.host,
          usdcText(amount),
          `over-${step}`,
          soakHost.wallet,
        );
        expect(response.status).toBe(402);
        return true;
      },
      /** Four withdrawals of a third of the earnings each, at once: exactly three are accepted. */
      async withdraw_race(soakHost: SoakHost, step: number): Promise<boolean> {
        await settled();
        const available = BigInt((await balanceOf(soakHost)).withdrawable_usdc_balance);
        if (available < 3_000n) return false;
        const each = available / 3n;
        const responses = await Promise.all(
          [0, 1, 2, 3].map((index) =>
            withdrawAs(gateway, soakHost.host, usdcText(each), `race-${step}-${index}`, soakHost.wallet),
          ),
        );
        const statuses = responses.map((response) => response.status).sort();
        expect(statuses).toEqual([202, 202, 202, 402]);
        for (const [index, response] of responses.entries())
          if (response.status === 202)
            withdrawals.push({
              host: soakHost,
              key: `race-${step}-${index}`,
              amount: each,
              id: ((await response.json()) as { id: string }).id,
            });
        return true;
      },
      /** A suspended host cannot cash out (403), and its queued payouts wait frozen through a worker pass. */
      async suspended_withdraw(soakHost: SoakHost, step: number): Promise<boolean> {
        await settled();
        const available = BigInt((await balanceOf(soakHost)).withdrawable_usdc_balance);
        await market.adminPost(`/v1/admin/hosts/${soakHost.host.providerId}/suspend`);
        try {
          const frozen = (await balanceOf(soakHost)).payouts.filter((one) => one.status === "requested");
          const amount = available > 1_000n ? available : 1_000n;
          const response = await withdrawAs(
            gateway,
            soakHost.host,
            usdcText(amount),
            `frozen-${step}`,
            soakHost.wallet,
          );
          expect(response.status).toBe(403);
          await runPayouts(gateway.app);
          const after = new Map((await balanceOf(soakHost)).payouts.map((one) => [one.id, one.status]));
          for (const one of frozen) expect(after.get(one.id)).toBe("requested");
        } finally {
          await market.adminPost(`/v1/admin/hosts/${soakHost.host.providerId}/activate`);
        }
        return true;
      },
    };
    type HostileAction = keyof typeof hostile;

    /** The operator releases the withdrawals held for review; the worker pays what is queued. */
    const payOut = async (stopBeforeConfirmation: boolean) => {
      for (const soakHost of hosts)
        for (const one of (await balanceOf(soakHost)).payouts)
          if (one.status === "awaiting_approval")
            await market.adminPost(`/v1/admin/payouts/${one.id}/approve`);
      if (!stopBeforeConfirmation) {
        await runPayouts(gateway.app);
        return;
      }
      // The worker gives up waiting (as a crash would): the transfers land, their payouts stay broadcast.
      solana.holdConfirmations();
      try {
        await runPayouts(gateway.app, { timeoutMs: 300 });
      } finally {
        solana.releaseConfirmations();
      }
    };

    const weighted: [string, number][] = [
      ["card", 14],
      ["refund", 8],
      ["dispute", 6],
      ["close_dispute", 4],
      ["admin", 7],
      ["deposit", 8],
      ["withdraw", 8],
      ["withdraw_reused_key", 3],
      ["withdraw_too_much", 3],
      ["withdraw_race", 3],
      ["suspended_withdraw", 3],
      ["payout", 6],
      ["spend", 27],
    ];
    const total = weighted.reduce((sum, [, weight]) => sum + weight, 0);
    const choose = () => {
      let roll = next() * total;
      for (const [action, weight] of weighted) {
        roll -= weight;
        if (roll < 0) return action;
      }
      return "spend";
    };

    for (let step = 0; step < steps && Date.now() < deadline; step += 1) {
      const { token, depositCode } = pick(tokens);
      const action = choose();
      counts[action] = (counts[action] ?? 0) + 1;
      switch (action) {
        case "card": {
          const response = await fetch(`${gateway.baseUrl}/proxy/${token}/fund/card`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ amount_usd: 5 + Math.floor(next() * 16) }),
          });
          expect(response.status).toBe(201);
          const { session_id: sessionId } = (await response.json()) as { session_id: string };
          await stripe.complete(sessionId);
          paidSessions.push({ token, sessionId });
          break;
        }
        case "refund": {
          if (paidSessions.length === 0) break;
          const { sessionId } = pick(paidSessions);
          // A refund during an open dispute (Stripe allows it on an inquiry) is taken if the dispute is won.
          const total = stripe.sessions.get(sessionId)?.amount_total ?? 0;
          expect((await stripe.refund(sessionId, Math.max(1, Math.floor(total * next())))).status).toBe(200);
          break;
        }
        case "dispute": {
          if (paidSessions.length === 0) break;
          const { sessionId } = pick(paidSessions);
          if (disputed.includes(sessionId)) break;
          disputed.push(sessionId);
          expect((await stripe.dispute(sessionId)).status).toBe(200);
          break;
        }
        case "close_dispute": {
          const sessionId = disputed.shift();
          if (!sessionId) break;
          expect((await stripe.closeDispute(sessionId, next() < 0.5 ? "won" : "lost")).status).toBe(200);
          break;
        }
        case "admin":
          await gateway.credit(token, BigInt(1 + Math.floor(next() * 3_000_000)));
          break;
        case "deposit":
          await sendUsdcWithMemo(solana, {
            payer,
            owner: depositOwner as never,
            amount: BigInt(1 + Math.floor(next() * 5_000_000)),
            memo: depositCode,
          });
          await scanDeposits(gateway.app);
          break;
        case "payout":
          await payOut(next() < 0.3);
          break;
        case "spend": {
          // Centralized, or the marketplace as routing chooses, or one host pinned: the hosts' earnings.
          const route = next();
          const host = pick(hosts).host.providerId;
          await spend(
            token,
            String(step),
            route < 0.4
              ? undefined
              : route < 0.7
                ? { "X-Pod-Routing-Mode": "marketplace-only" }
                : { "X-Pod-Providers": host },
          );
          break;
        }
        default:
          if (await hostile[action as HostileAction](pick(hosts), step))
            done[action] = (done[action] ?? 0) + 1;
      }
    }
    // Every hostile withdrawal runs at least once: those the dice skipped (or found no earnings
    // for) run now, on a host that has just earned enough.
    for (const action of Object.keys(hostile) as HostileAction[]) {
      if (done[action]) continue;
      const soakHost = pick(hosts);
      await earn(soakHost, 4_000n);
      expect(await hostile[action](soakHost, steps + Object.keys(done).length), action).toBe(true);
      done[action] = 1;
    }

    // Everything in flight settles, leases go back, what they freed pays what refunds left owed.
    await gateway.app.leases?.returnAll();
    await collectOpenReceivables(gateway.app.database.db);
    // Every accepted withdrawal is paid, on the chain, exactly once; the first pass stops before
    // confirmation (as a crash would), and the next ones finish the same transactions.
    const stateOf = async () =>
      (
        await queryRows<{ status: string }>(gateway.app.database.db, sql`SELECT status FROM host_payouts`)
      ).map((row) => row.status);
    const queued = (await stateOf()).filter(
      (status) => status === "requested" || status === "awaiting_approval",
    );
    await payOut(true);
    if (queued.length > 0) expect(await stateOf()).toContain("broadcast");
    for (let pass = 0; pass < 10; pass += 1) {
      await payOut(false);
      const [open] = await queryRows<{ open: string }>(
        gateway.app.database.db,
        sql`SELECT count(*)::text AS open FROM host_payouts WHERE status <> 'confirmed'`,
      );
      if (open?.open === "0") break;
    }
    expect(withdrawals.length).toBeGreaterThan(0);
    for (const soakHost of hosts) {
      const paid = withdrawals
        .filter((one) => one.host === soakHost)
        .reduce((sum, one) => sum + one.amount, 0n);
      const confirmed = (await balanceOf(soakHost)).payouts.filter((one) => one.status === "confirmed");
      expect(confirmed.length).toBe(withdrawals.filter((one) => one.host === soakHost).length);
      expect(await solana.getTokenBalance(soakHost.wallet, solana.usdcMint)).toBe(paid);
    }
    const report = await reconcileOver(gateway);
    expect(report.checked).toEqual(expect.arrayContaining(["ledger", "stripe", "solana"]));
    expect(
      report.differences,
      `seed ${seed}, steps by kind ${JSON.stringify(counts)}, hostile withdrawals ${JSON.stringify(done)}`,
    ).toEqual([]);
    expect(report.unexplained_microunits).toBe("0");
    expect(Object.keys(counts).length).toBeGreaterThanOrEqual(5);
  }, 300_000);
});
