import { type HostAgent, hostAgentSchema, hostProfileSchema } from "@pod-gateway/contracts/host-api";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hosts, hostTrustEvents } from "../../../lib/db/schema";
import { performanceKey } from "../../../lib/routing/source-performance";
import { withAgentMarket } from "../../helpers/agent-market";
import type { RunningAgent } from "../../helpers/agent-process";
import type { TestGateway } from "../../helpers/gateway";
import { connectHostileHost } from "../../helpers/hostile-host";
import type { MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * Hosts that accept jobs and break them (issue 31, item 4), as hostile agent processes over a
 * real WebSocket: a caller of a host that never answers waits the first-chunk deadline and no
 * longer, then is served by the next candidate; the miss, a stall and a cut answer are on the
 * host's record, and repeated misses take the host out of routing.
 */
const firstChunkMs = 800;
const stallMs = 800;
const deadlineMs = 30_000;
let gateway: TestGateway;
let market: MarketplaceFixture;
const processes: RunningAgent[] = [];

withAgentMarket({
  env: {
    PROVIDER_JOB_DEADLINE_MS: String(deadlineMs),
    PROVIDER_FIRST_CHUNK_MS: String(firstChunkMs),
    PROVIDER_STALL_MS: String(stallMs),
    PROVIDER_HEARTBEAT_TIMEOUT_MS: "5000",
  },
  processes,
  started: (started) => {
    ({ gateway, market } = started);
  },
});

const hostileHost = (attack: string) => connectHostileHost(gateway, market, processes, attack);

async function record(providerId: string) {
  return gateway.app.database.db
    .select({ kind: hostTrustEvents.kind, evidence: hostTrustEvents.evidence })
    .from(hostTrustEvents)
    .where(eq(hostTrustEvents.hostId, providerId));
}

async function call(token: string, mode: string, stream = true) {
  const started = Date.now();
  const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Pod-Routing-Mode": mode },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      max_tokens: 20,
      stream,
      messages: [{ role: "user", content: "Say one thing about the sea." }],
    }),
    signal: AbortSignal.timeout(deadlineMs + 10_000),
  });
  const text = await response.text();
  return { status: response.status, text, elapsedMs: Date.now() - started };
}

describe("hosts that break the jobs they accept", () => {
  it("a host that never answers holds its caller the first-chunk deadline, is on record and then out of routing", async () => {
    const host = await hostileHost("silent");
    const token = await gateway.createFundedToken(5_000_000n);
    // With only the marketplace allowed the caller gets a clean timeout; with the default mode
    // it is failed over to the centralized source and served.
    const alone = await call(token, "marketplace-only");
    expect(alone.status).toBeGreaterThanOrEqual(502);
    expect(alone.text).toContain(`within ${firstChunkMs} ms`);
    expect(alone.elapsedMs).toBeLessThan(firstChunkMs + 1_500);
    const served = await call(token, "auto", false);
    expect(served.status).toBe(200);
    expect(served.elapsedMs).toBeLessThan(firstChunkMs + 1_500);
    await expect
      .poll(
        async () =>
          (await record(host.providerId)).filter((event) => event.kind === "first_chunk_missed").length,
      )
      .toBeGreaterThanOrEqual(2);
    // Demoted, it is tried after every other source: callers who allow one are not held.
    await expect.poll(() => gateway.app.routing.reputation.standing(host.providerId)).toBe("demoted");
    const demoted = await call(token, "auto", false);
    expect(demoted.status).toBe(200);
    expect(demoted.elapsedMs).toBeLessThan(firstChunkMs);
    // Repeated misses (callers who allow only the marketplace) exclude it.
    for (let index = 0; index < 3; index += 1) await call(token, "marketplace-only");
    await expect.poll(() => gateway.app.routing.reputation.standing(host.providerId)).toBe("excluded");
    const after = await call(token, "auto", false);
    expect(after.status).toBe(200);
    expect(after.elapsedMs).toBeLessThan(firstChunkMs);
    const profile = (await (await host.call("GET", "/v1/host/profile")).json()) as {
      reputation: { standing: string; reasons: string[]; broken_jobs_1h: number };
    };
    expect(profile.reputation.standing).toBe("excluded");
    expect(profile.reputation.broken_jobs_1h).toBeGreaterThanOrEqual(5);
    expect(profile.reputation.reasons.join(" ")).toMatch(/broken/);
    // Routing's measured figures count the misses too: a success rate of 0 and the misses as errors.
    const figures = gateway.app.routing.performance.figures(performanceKey(host.providerId, "gpt-4o-mini"));
    expect(figures.successRate).toBe(0);
    expect(figures.recentErrors.length).toBeGreaterThanOrEqual(3);

    // The provider page's API tells the truth: connected but stalled, the misses with their evidence.
    const agentView = () =>
      host.call("GET", "/v1/host/agent").then((response) => response.json() as Promise<HostAgent>);
    const stalled = hostAgentSchema.parse(await agentView());
    expect(stalled).toMatchObject({
      connected: true,
      state: "stalled",
      stalled: { kind: "first_chunk_missed" },
    });
    expect(Date.parse(stalled.last_seen_at ?? "")).toBeGreaterThan(Date.now() - 10_000);
    const withRecord = hostProfileSchema.parse(await (await host.call("GET", "/v1/host/profile")).json());
    expect(withRecord.reputation.routing).toBe("not routed");
    const misses = withRecord.trust_events.filter((event) => event.kind === "first_chunk_missed");
    expect(misses.length).toBeGreaterThanOrEqual(5);
    expect(misses[0]?.detail).toMatch(/first chunk/);
    // Stopped: offline, last seen when it left (kept on the host's row), never "connected".
    const [agent] = processes.splice(0);
    await agent?.stop();
    await expect.poll(async () => (await agentView()).state).toBe("offline");
    const offline = hostAgentSchema.parse(await agentView());
    expect(offline.connected).toBe(false);
    expect(Date.parse(offline.last_seen_at ?? "")).toBeGreaterThanOrEqual(
      Date.parse(stalled.last_seen_at ?? ""),
    );
    const [row] = await gateway.app.database.db
      .select({ seen: hosts.agentLastSeenAt })
      .from(hosts)
      .where(eq(hosts.id, host.providerId));
    expect(row?.seen?.toISOString()).toBe(offline.last_seen_at);
  });

  it.each([
    { attack: "stall", kind: "stalled" },
    { attack: "cut", kind: "stream_cut" },
  ])("$attack: the caller gets an in-band error and the host a $kind on its record", async (plan) => {
    const host = await hostileHost(plan.attack);
    const token = await gateway.createFundedToken(1_000_000n);
    const { status, text, elapsedMs } = await call(token, "marketplace-only");
    expect(status).toBe(200);
    expect(text).toMatch(/"error"/);
    expect(elapsedMs).toBeLessThan(stallMs + 3_000);
    await expect
      .poll(async () => (await record(host.providerId)).map((event) => event.kind))
      .toContain(plan.kind);
    await expect.poll(() => gateway.balanceOf(token).then((balance) => balance.held)).toBe(0n);
    // Routing's measured figures have the broken answer as a failure.
    const figures = gateway.app.routing.performance.figures(performanceKey(host.providerId, "gpt-4o-mini"));
    expect(figures.successRate).toBe(0);
    expect(figures.recentErrors.length).toBe(1);
  });
});
