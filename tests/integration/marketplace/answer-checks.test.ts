import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hostTrustEvents } from "../../../lib/db/schema";
import { withAgentMarket } from "../../helpers/agent-market";
import type { RunningAgent } from "../../helpers/agent-process";
import type { TestGateway } from "../../helpers/gateway";
import { connectHostileHost, expectVerificationBooked, slashCount } from "../../helpers/hostile-host";
import type { MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * Answer checks over the real job path (issue 31, items 2 and 3): hosts as agent processes
 * answering from the simulation's fake model, the centralized fake as the trusted reference
 * scoring their answers teacher-forced. Every answer is checked here (VERIFY_SHARE=1) so a
 * handful of jobs decides; the rates at the default share are bench/verification-sim.ts's.
 */
let gateway: TestGateway;
let market: MarketplaceFixture;
const processes: RunningAgent[] = [];

withAgentMarket({
  env: { VERIFY_SHARE: "1", CANARY_SHARE: "0", PROVIDER_HEARTBEAT_TIMEOUT_MS: "5000" },
  processes,
  started: (started) => {
    ({ gateway, market } = started);
  },
});

const modelHost = (attack: string, cheatRate?: number) =>
  connectHostileHost(gateway, market, processes, attack, cheatRate === undefined ? {} : { cheatRate });

async function events(providerId: string, kind: string) {
  return gateway.app.database.db
    .select({ evidence: hostTrustEvents.evidence, requestId: hostTrustEvents.requestId })
    .from(hostTrustEvents)
    .where(and(eq(hostTrustEvents.hostId, providerId), eq(hostTrustEvents.kind, kind)));
}

/** One real job: a few turns, a system prompt, sampling settings as callers send them; the route that served it. */
async function job(token: string, index: number, mode = "auto"): Promise<string | null> {
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Pod-Routing-Mode": mode },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      max_tokens: 1000,
      temperature: 0.7,
      // The cheapest source first: the marketplace host, with the centralized source behind it.
      provider: { sort: "price" },
      stream: index % 2 === 0,
      messages: [
        { role: "system", content: "You are a careful assistant." },
        { role: "user", content: `Question ${index}: what should I know about tides?` },
      ],
    }),
  });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get("x-pod-route");
}

describe("answer checks", () => {
  it("an honest host's answers are checked, booked and leave it in good standing", async () => {
    const host = await modelHost("model-honest");
    const token = await gateway.createFundedToken(20_000_000n);
    for (let index = 0; index < 12; index += 1) expect(await job(token, index)).toBe("marketplace");
    await expect.poll(async () => (await events(host.providerId, "answer_checked")).length).toBe(12);
    const checks = await events(host.providerId, "answer_checked");
    for (const check of checks) {
      const evidence = check.evidence as { reference: string; log_e: number; mean_logprob: number };
      expect(evidence.reference).toBe("openai");
      expect(check.requestId).toMatch(/^req_/);
    }
    expect(await events(host.providerId, "answer_substitution")).toEqual([]);
    expect(gateway.app.routing.reputation.standing(host.providerId)).toBe("good");
    // What scoring cost is on the books, against this host's account.
    await expectVerificationBooked(gateway, host.providerId, 12);
  });

  it("a host that answers from a smaller model on half its jobs, honest on whatever it takes for a canary, is excluded and slashed with the evidence", async () => {
    const host = await modelHost("model-classifier", 0.5);
    const token = await gateway.createFundedToken(20_000_000n);
    // Checks run after each answer: the verdict may land while the next job is routed.
    for (let index = 0; index < 60; index += 1) if ((await job(token, index)) !== "marketplace") break;
    await expect
      .poll(async () => (await events(host.providerId, "answer_substitution")).length)
      .toBeGreaterThan(0);
    await expect.poll(() => gateway.app.routing.reputation.standing(host.providerId)).toBe("excluded");
    const [verdict] = await events(host.providerId, "answer_substitution");
    const evidence = verdict?.evidence as {
      last_check: { request_id: string; statistic: number; threshold: number };
    };
    expect(evidence.last_check.request_id).toMatch(/^req_/);
    expect(evidence.last_check.statistic).toBeGreaterThanOrEqual(evidence.last_check.threshold);
    // Proven substitution is slashed, as with canaries.
    await expect.poll(() => slashCount(gateway, host.providerId)).toBe(1);
  });

  it("a host that behaves until it is trusted, then answers from a smaller model, is excluded on the answers after its switch", async () => {
    const host = await connectHostileHost(gateway, market, processes, "model-smaller", { cheatAfter: 12 });
    const token = await gateway.createFundedToken(20_000_000n);
    for (let index = 0; index < 12; index += 1) expect(await job(token, index)).toBe("marketplace");
    // Twelve honest answers checked: trusted, in good standing.
    await expect.poll(async () => (await events(host.providerId, "answer_checked")).length).toBe(12);
    const trusted = (await events(host.providerId, "answer_checked")).map((check) => check.requestId);
    expect(gateway.app.routing.reputation.standing(host.providerId)).toBe("good");
    // Then it cheats on every job: what it banked buys it nothing (the detector restarts from 0).
    for (let index = 12; index < 40; index += 1) if ((await job(token, index)) !== "marketplace") break;
    await expect.poll(() => gateway.app.routing.reputation.standing(host.providerId)).toBe("excluded");
    const [verdict] = await events(host.providerId, "answer_substitution");
    expect(verdict?.requestId).toMatch(/^req_/);
    expect(trusted).not.toContain(verdict?.requestId);
    const checks = await events(host.providerId, "answer_checked");
    // Excluded within a few cheated answers of its switch.
    expect(checks.length - trusted.length).toBeLessThanOrEqual(6);
  });

  it("checks nothing the caller's routing kept from the reference", async () => {
    const host = await modelHost("model-honest");
    const token = await gateway.createFundedToken(5_000_000n);
    for (let index = 0; index < 3; index += 1)
      expect(await job(token, index, "marketplace-only")).toBe("marketplace");
    await expect.poll(() => gateway.marketplace.inFlight(host.providerId)).toBe(0);
    expect(await events(host.providerId, "answer_checked")).toEqual([]);
  });
});
