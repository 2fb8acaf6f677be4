import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { hostSlashes, ledgerTransactions } from "../../lib/db/schema";
import { ensureAccount, getAccountBalance } from "../../lib/ledger/accounts";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { type RunningAgent, startHostileAgent } from "./agent-process";
import type { TestGateway } from "./gateway";
import type { MarketplaceFixture, TestHost } from "./marketplace-fixture";

/**
 * A host enrolled through the host API whose agent is the hostile agent process
 * (tests/helpers/hostile-agent-process.ts) doing `attack` to every job, once its offers are live.
 * The process goes into `processes`, for the test to stop.
 */
export async function connectHostileHost(
  gateway: TestGateway,
  market: MarketplaceFixture,
  processes: RunningAgent[],
  attack: string,
  options: { cheatRate?: number; cheatAfter?: number; name?: string; model?: string } = {},
): Promise<TestHost> {
  const host = await market.enroll(options.name === undefined ? {} : { name: options.name });
  const profile = (await (await host.call("GET", "/v1/host/profile")).json()) as {
    metadata: { enrollment_code: string };
  };
  const agent = startHostileAgent({
    gatewayUrl: gateway.baseUrl,
    enrollmentCode: profile.metadata.enrollment_code,
    attack,
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.cheatRate === undefined ? {} : { cheatRate: options.cheatRate }),
    ...(options.cheatAfter === undefined ? {} : { cheatAfter: options.cheatAfter }),
  });
  processes.push(agent);
  await agent.waitFor("ready");
  await expect
    .poll(() => gateway.marketplace.liveOffers().some((offer) => offer.providerId === host.providerId))
    .toBe(true);
  return host;
}

/** How many times the host has been slashed. */
export async function slashCount(gateway: TestGateway, hostId: string): Promise<number> {
  const rows = await gateway.app.database.db.select().from(hostSlashes).where(eq(hostSlashes.hostId, hostId));
  return rows.length;
}

/**
 * What checking the host's answers cost is on the books: its per-host verification account holds
 * a positive balance, at least `checks` verification_check transactions were posted, and the
 * ledger balances.
 */
export async function expectVerificationBooked(
  gateway: TestGateway,
  hostId: string,
  checks: number,
): Promise<void> {
  const db = gateway.app.database.db;
  const perHost = await ensureAccount(db, "suspense", `verification:${hostId}`);
  expect((await getAccountBalance(db, perHost)).balance).toBeGreaterThan(0n);
  const booked = await db
    .select({ kind: ledgerTransactions.kind })
    .from(ledgerTransactions)
    .where(eq(ledgerTransactions.kind, "verification_check"));
  expect(booked.length).toBeGreaterThanOrEqual(checks);
  expect(await verifyLedger(db)).toEqual([]);
}
