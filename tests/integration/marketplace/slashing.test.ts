import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hostPayouts, hostSlashes, hosts, ledgerTransactions } from "../../../lib/db/schema";
import { returnDueBonds } from "../../../lib/hosts/retire-host";
import { ensureAccount, getAccountBalance } from "../../../lib/ledger/accounts";
import { postTransaction } from "../../../lib/ledger/post-transaction";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { reconcileCredits } from "../../../lib/reconcile/core/reconcile-credits";
import { upkeepTrust } from "../../../lib/trust/note-trust-events";
import { recordTrustEvents } from "../../../lib/trust/trust-events";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import {
  createMarketplaceFixture,
  type MarketplaceFixture,
  type TestHost,
} from "../../helpers/marketplace-fixture";
import type { ScriptedAgent } from "../../helpers/scripted-agent";
import { scriptedHost, serveHonestJob, withdrawAs } from "../../helpers/scripted-host";

/**
 * Earnings mature before they can leave; a suspended host's money is frozen; a slashed host's
 * immature earnings and bond go back to the callers it served. Maturity is 2 seconds here so a
 * clean host's withdrawal after maturity can be shown without a clock of days.
 */
const maturitySeconds = 2;
let gateway: TestGateway;
let market: MarketplaceFixture;
const agents: ScriptedAgent[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({
    env: {
      HOST_EARNINGS_MATURITY_SECONDS: String(maturitySeconds),
      HOST_WITHDRAW_MIN_MICROUNITS: "1000",
      HOST_BOND_COOLDOWN_SECONDS: "0",
    },
  });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.close();
  await market.cleanup();
});
afterAll(async () => {
  await gateway?.close();
});

const database = () => gateway.app.database.db;

async function balanceOf(kind: "provider" | "bond", hostId: string): Promise<bigint> {
  return (await getAccountBalance(database(), await ensureAccount(database(), kind, hostId))).balance;
}

/** 50 USDC in the host's bond account, as the deposit watcher books it. */
async function postBond(hostId: string): Promise<void> {
  const bond = await ensureAccount(database(), "bond", hostId);
  const deposits = await ensureAccount(database(), "external", "test-bond-deposits");
  await database().transaction((tx) =>
    postTransaction(tx, {
      kind: "bond_deposit",
      entries: [
        { accountId: deposits, amount: -50_000_000n },
        { accountId: bond, amount: 50_000_000n },
      ],
    }),
  );
}

/** A host whose scripted agent answers every job honestly (up to 4 at once). */
async function servingHost() {
  const served = await scriptedHost(gateway, market, { maxConcurrent: 4 });
  agents.push(served.agent);
  return served;
}

/** One caller's job served by `agent`: 4000 microunits paid, 3200 to the host. */
async function serveOne(agent: ScriptedAgent, token: string): Promise<void> {
  await serveHonestJob(gateway, agent, token);
  await expect.poll(() => gateway.balanceOf(token).then((balance) => balance.held)).toBe(0n);
}

function withdraw(host: TestHost, amount: string, key: string): Promise<Response> {
  return withdrawAs(gateway, host, amount, key);
}

const admin = (path: string, body?: unknown) =>
  fetch(`${gateway.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("maturity", () => {
  it("a clean host's earnings mature, then it withdraws as before", async () => {
    const { host, agent } = await servingHost();
    await serveOne(agent, await gateway.createFundedToken(100_000_000n));
    const early = (await (await host.call("GET", "/v1/host/balance")).json()) as Record<string, number>;
    expect(early).toMatchObject({
      usdc_balance: 3200,
      maturing_usdc_balance: 3200,
      withdrawable_usdc_balance: 0,
    });
    const refused = await withdraw(host, "0.0032", "too-early");
    expect(refused.status).toBe(402);
    expect(await refused.text()).toMatch(/0.0032 USDC more is maturing/);

    await new Promise((resolve) => setTimeout(resolve, maturitySeconds * 1000 + 300));
    const later = (await (await host.call("GET", "/v1/host/balance")).json()) as Record<string, number>;
    expect(later).toMatchObject({ maturing_usdc_balance: 0, withdrawable_usdc_balance: 3200 });
    const accepted = await withdraw(host, "0.0032", "after-maturity");
    expect(accepted.status).toBe(202);
    expect(await balanceOf("provider", host.providerId)).toBe(0n);
    expect(await verifyLedger(database())).toEqual([]);
  });
});

describe("suspension", () => {
  it("freezes withdrawals, retirement and the bond", async () => {
    const { host, agent } = await servingHost();
    await postBond(host.providerId);
    await serveOne(agent, await gateway.createFundedToken(100_000_000n));
    await new Promise((resolve) => setTimeout(resolve, maturitySeconds * 1000 + 300));
    expect((await admin(`/v1/admin/hosts/${host.providerId}/suspend`)).status).toBe(200);

    const withdrawal = await withdraw(host, "0.0032", "while-suspended");
    expect(withdrawal.status).toBe(403);
    expect(await withdrawal.text()).toMatch(/suspended/);
    const balance = (await (await host.call("GET", "/v1/host/balance")).json()) as Record<string, unknown>;
    expect(balance).toMatchObject({ withdrawable_usdc_balance: 0, frozen: true });
    const retire = await host.call("POST", "/v1/host/retire");
    expect(retire.status).toBe(403);

    // Suspended during its bond cooldown: the bond stays where it is.
    await database()
      .update(hosts)
      .set({ status: "retired", retiredAt: new Date(), bondReturnAfter: new Date(Date.now() - 1000) })
      .where(eq(hosts.id, host.providerId));
    expect((await admin(`/v1/admin/hosts/${host.providerId}/suspend`)).status).toBe(200);
    await returnDueBonds(gateway.app);
    expect(await balanceOf("bond", host.providerId)).toBe(50_000_000n);
    const payouts = await database()
      .select()
      .from(hostPayouts)
      .where(eq(hostPayouts.hostId, host.providerId));
    expect(payouts).toEqual([]);
    expect(await balanceOf("provider", host.providerId)).toBe(3200n);
  });
});

describe("slashing", () => {
  it("pays a host's immature earnings and bond back to the callers it served, pro rata, as balanced ledger movements", async () => {
    const { host, agent } = await servingHost();
    await postBond(host.providerId);
    const first = await gateway.createFundedToken(100_000_000n);
    const second = await gateway.createFundedToken(100_000_000n);
    await serveOne(agent, first);
    await serveOne(agent, first);
    await serveOne(agent, second);
    // The first caller paid 8000, the second 4000; the host holds 9600 of earnings and a 50 USDC bond.
    expect(await balanceOf("provider", host.providerId)).toBe(9_600n);

    const response = await admin(`/v1/admin/hosts/${host.providerId}/slash`, {
      reason: "served a different model than it announced",
      evidence: { canary: "test" },
    });
    expect(response.status).toBe(200);
    const slash = (await response.json()) as Record<string, number | string>;
    expect(slash).toMatchObject({
      status: "suspended",
      earnings_microunits: 9_600,
      bond_microunits: 50_000_000,
      callers_refunded: 2,
      // The pool (50,009,600) is far above what the callers paid: each is refunded in full.
      refunded_microunits: 12_000,
      remainder_microunits: 50_009_600 - 12_000,
    });
    expect((await gateway.balanceOf(first)).balance).toBe(100_000_000n);
    expect((await gateway.balanceOf(second)).balance).toBe(100_000_000n);
    expect(await balanceOf("provider", host.providerId)).toBe(0n);
    expect(await balanceOf("bond", host.providerId)).toBe(0n);
    expect(
      (await getAccountBalance(database(), await ensureAccount(database(), "suspense", "slash-refund-pool")))
        .balance,
    ).toBe(0n);

    // Each movement carries the slash and its evidence.
    const movements = await database()
      .select({ kind: ledgerTransactions.kind, metadata: ledgerTransactions.metadata })
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.idempotencyKey, `slash-refund:${String(slash.slash_id)}`));
    expect(movements[0]?.metadata).toMatchObject({
      slash_id: slash.slash_id,
      reason: "served a different model than it announced",
      evidence: { canary: "test" },
    });
    const [row] = await database().select().from(hostSlashes).where(eq(hostSlashes.hostId, host.providerId));
    expect(row).toMatchObject({ trigger: "admin", refundedMicrounits: 12_000n });
    // The slashed host is out of routing and frozen.
    expect(gateway.marketplace.liveOffers().some((offer) => offer.providerId === host.providerId)).toBe(
      false,
    );
    expect((await withdraw(host, "0.001", "after-slash")).status).toBe(403);
    expect(await verifyLedger(database())).toEqual([]);
    // Each refund has its slash: the reconcile finds no credit to a token without its record.
    expect(await reconcileCredits(database())).toEqual([]);
  });

  it("shares a pool smaller than what the callers paid in proportion to their payments", async () => {
    const { host, agent } = await servingHost();
    const first = await gateway.createFundedToken(100_000_000n);
    const second = await gateway.createFundedToken(100_000_000n);
    await serveOne(agent, first);
    await serveOne(agent, first);
    await serveOne(agent, second);
    const response = await admin(`/v1/admin/hosts/${host.providerId}/slash`, { reason: "over-billing" });
    // No bond: the pool is the 9600 of immature earnings against 12,000 paid.
    expect(await response.json()).toMatchObject({ refunded_microunits: 9_600, remainder_microunits: 0 });
    expect((await gateway.balanceOf(first)).balance).toBe(100_000_000n - 8_000n + 6_400n);
    expect((await gateway.balanceOf(second)).balance).toBe(100_000_000n - 4_000n + 3_200n);
    expect(await verifyLedger(database())).toEqual([]);
  });

  it("refuses an unknown host and a slash without a reason", async () => {
    expect(
      (await admin("/v1/admin/hosts/00000000-0000-4000-8000-000000000000/slash", { reason: "x" })).status,
    ).toBe(404);
    const { host } = await servingHost();
    expect((await admin(`/v1/admin/hosts/${host.providerId}/slash`, {})).status).toBe(400);
  });

  it("the upkeep slashes a host its record proves a cheat, once, whoever filed the evidence", async () => {
    const { host, agent } = await servingHost();
    const caller = await gateway.createFundedToken(100_000_000n);
    await serveOne(agent, caller);
    // Five failed canaries, filed as another replica would: nothing re-read or slashed here yet.
    await recordTrustEvents(
      database(),
      host.providerId,
      Array.from({ length: 5 }, () => ({ kind: "canary_fail" as const, detail: "another model's answer" })),
    );
    expect(gateway.app.routing.reputation.of(host.providerId).proven).toBe(false);

    // Replicas run their upkeep on their own clocks: three at once, then one more, slash once.
    await Promise.all([upkeepTrust(gateway.app), upkeepTrust(gateway.app), upkeepTrust(gateway.app)]);
    await upkeepTrust(gateway.app);
    const slashes = await database()
      .select()
      .from(hostSlashes)
      .where(eq(hostSlashes.hostId, host.providerId));
    expect(slashes).toMatchObject([{ trigger: "automatic", refundedMicrounits: 3_200n }]);
    const [row] = await database()
      .select({ status: hosts.status })
      .from(hosts)
      .where(eq(hosts.id, host.providerId));
    expect(row?.status).toBe("suspended");
    expect(gateway.app.routing.reputation.standing(host.providerId)).toBe("excluded");
    // No bond: the host's 3200 of immature earnings go back to the one caller, who paid 4000.
    expect((await gateway.balanceOf(caller)).balance).toBe(100_000_000n - 4_000n + 3_200n);
    expect(await verifyLedger(database())).toEqual([]);
  });
});
