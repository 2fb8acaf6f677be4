import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hostSlashes, hosts, hostTrustEvents } from "../../../lib/db/schema";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * Hidden canaries over real HTTP: every marketplace job is followed by a canary (CANARY_SHARE=1,
 * no delay) sent through the same pipeline to the same agent, and the same prompt to the trusted
 * centralized source of the model (the fake OpenAI upstream). An agent whose backend is another
 * "model" (a fake that answers with other words) is caught, demoted, then excluded, then slashed
 * automatically with its callers refunded; an honest agent is never flagged over a run of jobs.
 */
let gateway: TestGateway;
let market: MarketplaceFixture;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { CANARY_SHARE: "1", CANARY_MAX_DELAY_MS: "0" } });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  await market.cleanup();
});
afterAll(async () => {
  await gateway?.close();
});

const db = () => gateway.app.database.db;

async function verdicts(hostId: string): Promise<string[]> {
  const rows = await db()
    .select({ kind: hostTrustEvents.kind })
    .from(hostTrustEvents)
    .where(eq(hostTrustEvents.hostId, hostId));
  return rows.map((row) => row.kind);
}

async function ask(token: string): Promise<Response> {
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "marketplace-only" },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Tell me about tides." }],
    }),
  });
  await response.text();
  return response;
}

describe("canaries", () => {
  it("catch an agent serving another model: demoted, excluded, then slashed with its callers refunded", async () => {
    const honest = await market.agent({
      offers: [{ model: "gpt-4o-mini", input: 100_000, output: 400_000 }],
    });
    // Cheaper, so routing prefers it until its record says otherwise.
    const cheat = await market.agent({
      offers: [{ model: "gpt-4o-mini", input: 50_000, output: 100_000 }],
      voice: "other",
    });
    const caller = await gateway.createFundedToken(1_000_000n);
    const first = await ask(caller);
    expect(first.headers.get("x-pod-provider-id")).toBe(cheat.host.providerId);
    const paidToCheat = 1_000_000n - (await gateway.balanceOf(caller)).balance;
    expect(paidToCheat).toBeGreaterThan(0n);

    // The first canary fails: the cheat is no longer the first choice.
    // The verdict row is written before this process's routing re-reads the standing: wait for the latter.
    await expect.poll(async () => (await verdicts(cheat.host.providerId)).includes("canary_fail")).toBe(true);
    await expect.poll(() => gateway.app.routing.reputation.standing(cheat.host.providerId)).not.toBe("good");
    const next = await ask(await gateway.createFundedToken(1_000_000n));
    expect(next.headers.get("x-pod-provider-id")).toBe(honest.host.providerId);

    // Failed canaries are followed by more until substitution is proven: then it is slashed.
    await expect
      .poll(
        async () =>
          (await db().select().from(hostSlashes).where(eq(hostSlashes.hostId, cheat.host.providerId))).length,
        {
          timeout: 30_000,
        },
      )
      .toBe(1);
    const [slash] = await db()
      .select()
      .from(hostSlashes)
      .where(eq(hostSlashes.hostId, cheat.host.providerId));
    expect(slash).toMatchObject({ trigger: "automatic" });
    expect(slash?.reason).toMatch(/canary answers differed/);
    const [row] = await db()
      .select({ status: hosts.status })
      .from(hosts)
      .where(eq(hosts.id, cheat.host.providerId));
    expect(row?.status).toBe("suspended");
    // The caller it served got back what it paid.
    expect((await gateway.balanceOf(caller)).balance).toBe(1_000_000n);
    const kinds = await verdicts(cheat.host.providerId);
    expect(kinds.filter((kind) => kind === "canary_fail").length).toBeGreaterThanOrEqual(5);
    expect(kinds).not.toContain("canary_pass");

    // The operator reads the record, with the reason in words.
    const trust = await fetch(`${gateway.baseUrl}/v1/admin/hosts/${cheat.host.providerId}/trust`, {
      headers: { authorization: `Bearer ${testAdminToken}` },
    });
    expect(trust.status).toBe(200);
    const record = (await trust.json()) as { standing: string; reasons: string[]; slashes: unknown[] };
    expect(record.standing).toBe("excluded");
    expect(record.reasons.join(" ")).toMatch(/canary answers differed/);
    expect(record.slashes).toHaveLength(1);
    expect(await verifyLedger(db())).toEqual([]);
  });

  it("never flag an honest agent over a run of jobs", async () => {
    // Room for the canaries that follow each job (up to 4 at once) beside the next real one.
    const honest = await market.agent({
      offers: [{ model: "gpt-4o-mini", input: 100_000, output: 400_000, maxConcurrent: 8 }],
    });
    const token = await gateway.createFundedToken(10_000_000n);
    for (let job = 0; job < 25; job += 1) {
      const response = await ask(token);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-pod-provider-id")).toBe(honest.host.providerId);
    }
    await expect
      .poll(
        async () => (await verdicts(honest.host.providerId)).filter((kind) => kind === "canary_pass").length,
        {
          timeout: 30_000,
        },
      )
      .toBeGreaterThanOrEqual(20);
    expect(await verdicts(honest.host.providerId)).not.toContain("canary_fail");
    expect(gateway.app.routing.reputation.standing(honest.host.providerId)).toBe("good");
    // The host sees its standing on its profile.
    const profile = (await (await honest.host.call("GET", "/v1/host/profile")).json()) as {
      reputation: { standing: string; canaries: { checked: number; failed: number } };
    };
    expect(profile.reputation).toMatchObject({ standing: "good", canaries: { failed: 0 } });
    expect(profile.reputation.canaries.checked).toBeGreaterThanOrEqual(20);
    expect(await verifyLedger(db())).toEqual([]);
  });
});
