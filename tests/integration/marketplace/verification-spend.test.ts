import { and, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { hostTrustEvents, ledgerTransactions, usageRecords } from "../../../lib/db/schema";
import { ensureAccount, getAccountBalance, systemAccounts } from "../../../lib/ledger/accounts";
import { readVerificationSpend } from "../../../lib/operator-console/verification-spend";
import type { RunningAgent } from "../../helpers/agent-process";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { connectHostileHost } from "../../helpers/hostile-host";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * What the operator console's money page says verification cost, against what happened, over
 * real jobs: canaries after every job (CANARY_SHARE=1) to an honest agent, and every answer of
 * an agent process answering from the fake model scored by the centralized reference
 * (VERIFY_SHARE=1), each on a gateway of its own so the two costs are told apart. Canary spend is
 * checked against the canary jobs' usage records (another table than the ledger the read sums),
 * scoring against its transactions, "today" against a day with nothing in it.
 */
const processes: RunningAgent[] = [];
const opened: { gateway: TestGateway; market: MarketplaceFixture }[] = [];

async function gatewayWith(env: Record<string, string>) {
  const gateway = await startTestGateway({ env });
  const market = createMarketplaceFixture(gateway);
  opened.push({ gateway, market });
  return { gateway, market, db: gateway.app.database.db };
}

afterEach(async () => {
  for (const agent of processes.splice(0)) await agent.stop();
});
afterAll(async () => {
  for (const { gateway, market } of opened) {
    await market.cleanup();
    await gateway.close();
  }
});

/** Three jobs served by `hostId`, with sampling settings an answer check can score. */
async function serveThree(gateway: TestGateway, hostId: string): Promise<void> {
  const token = await gateway.createFundedToken(20_000_000n);
  for (let index = 0; index < 3; index += 1) {
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        max_tokens: 200,
        temperature: 0.7,
        // The cheapest source first: the marketplace host, with the centralized source behind it.
        provider: { sort: "price" },
        messages: [{ role: "user", content: `Question ${index}: what should I know about tides?` }],
      }),
    });
    expect(response.headers.get("x-pod-provider-id")).toBe(hostId);
    await response.text();
  }
}

async function count(db: TestGateway["app"]["database"]["db"], kind: string, hostId?: string) {
  const [row] =
    hostId === undefined
      ? await db
          .select({ count: sql<number>`count(*)::int` })
          .from(ledgerTransactions)
          .where(eq(ledgerTransactions.kind, kind))
      : await db
          .select({ count: sql<number>`count(*)::int` })
          .from(hostTrustEvents)
          .where(and(eq(hostTrustEvents.hostId, hostId), eq(hostTrustEvents.kind, kind)));
  return row?.count ?? 0;
}

const tomorrow = () => new Date(Date.now() + 86_400_000);

describe("verification spend", () => {
  it("counts canary jobs as their usage records charged them, today and in all", async () => {
    const { gateway, market, db } = await gatewayWith({
      CANARY_SHARE: "1",
      CANARY_MAX_DELAY_MS: "0",
      VERIFY_SHARE: "0",
    });
    // A canary's answer is scored under the reference like a real one: an agent answering from the model.
    const host = await connectHostileHost(gateway, market, processes, "model-honest", { name: "canary box" });
    await serveThree(gateway, host.providerId);
    await expect.poll(() => count(db, "canary_pass", host.providerId)).toBe(3);
    const { kind, ref } = systemAccounts.canaryCaller;
    const canaryCaller = await ensureAccount(db, kind, ref);
    const canaryUsage = () =>
      db
        .select({
          count: sql<number>`count(*)::int`,
          total: sql<string>`coalesce(sum(${usageRecords.costMicrounits}), 0)`,
        })
        .from(usageRecords)
        .where(eq(usageRecords.accountId, canaryCaller))
        .then(([row]) => ({ count: row?.count ?? 0, total: BigInt(row?.total ?? 0) }));
    // Settled: each canary is two requests billed to the canary caller (the host's answer and the
    // trusted source's), so six usage records, and nothing held.
    await expect.poll(async () => (await canaryUsage()).count).toBe(6);
    await expect.poll(async () => (await getAccountBalance(db, canaryCaller)).held).toBe(0n);

    const spend = await readVerificationSpend(db);
    expect(spend.canaryMicrounits).toBeGreaterThan(0n);
    expect(spend.canaryMicrounits).toBe((await canaryUsage()).total);
    expect(spend.canaryTodayMicrounits).toBe(spend.canaryMicrounits);
    // Each canary's answer is scored under the reference like a checked real answer, booked per host.
    const scored = (
      await getAccountBalance(db, await ensureAccount(db, "suspense", `verification:${host.providerId}`))
    ).balance;
    expect(scored).toBeGreaterThan(0n);
    expect(spend).toMatchObject({
      scoringMicrounits: scored,
      scoringTodayMicrounits: scored,
      hosts: [{ hostId: host.providerId, scoringMicrounits: scored }],
    });
    // Drawn from the budget: the canary caller's $5 top-ups (what it has not spent is still its
    // own) and the scoring.
    const topUps = BigInt(await count(db, "canary_budget")) * 5_000_000n;
    expect(spend.drawnMicrounits).toBe(topUps + scored);
    expect(spend.canaryMicrounits + spend.canaryFloatMicrounits).toBe(topUps);
    expect(await readVerificationSpend(db, tomorrow())).toMatchObject({
      canaryTodayMicrounits: 0n,
      canaryMicrounits: spend.canaryMicrounits,
    });
  });

  it("counts the scoring of real answers per host, as its transactions booked it", async () => {
    const { gateway, market, db } = await gatewayWith({ CANARY_SHARE: "0", VERIFY_SHARE: "1" });
    const name = "checked box";
    const host = await connectHostileHost(gateway, market, processes, "model-honest", { name });
    await serveThree(gateway, host.providerId);
    await expect.poll(() => count(db, "answer_checked", host.providerId)).toBe(3);
    expect(await count(db, "verification_check")).toBe(3);
    const perHost = await ensureAccount(db, "suspense", `verification:${host.providerId}`);
    const booked = (await getAccountBalance(db, perHost)).balance;

    const spend = await readVerificationSpend(db);
    expect(booked).toBeGreaterThan(0n);
    expect(spend).toMatchObject({
      scoringMicrounits: booked,
      scoringTodayMicrounits: booked,
      drawnMicrounits: booked,
      canaryMicrounits: 0n,
      hosts: [{ hostId: host.providerId, name, scoringMicrounits: booked }],
    });
    expect(await readVerificationSpend(db, tomorrow())).toMatchObject({
      scoringTodayMicrounits: 0n,
      scoringMicrounits: booked,
    });
  });
});
