import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hostTrustEvents } from "../../../lib/db/schema";
import { withAgentMarket } from "../../helpers/agent-market";
import type { RunningAgent } from "../../helpers/agent-process";
import type { TestGateway } from "../../helpers/gateway";
import { connectHostileHost } from "../../helpers/hostile-host";
import type { MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * Hidden canaries for a host serving Anthropic's Messages format, judged by a reference that
 * gives no log-probabilities (issue 31): the canary is drawn from the shapes of the host's own
 * (Anthropic-format) jobs, reaches its agent in that format, and its answer is compared with the
 * reference's samples of the same request. Every job is followed by a canary (CANARY_SHARE=1, no
 * delay); real answers are not checked here (VERIFY_SHARE=0).
 */
const samples = 8;
let gateway: TestGateway;
let market: MarketplaceFixture;
const processes: RunningAgent[] = [];

withAgentMarket({
  env: {
    CANARY_SHARE: "1",
    CANARY_MAX_DELAY_MS: "0",
    VERIFY_SHARE: "0",
    VERIFY_RESAMPLES: String(samples),
    PROVIDER_HEARTBEAT_TIMEOUT_MS: "5000",
  },
  processes,
  prepare: (started) => {
    for (const reference of [started.openai, started.openrouter]) {
      reference.setLogprobs(false);
      reference.setVoice("model");
    }
  },
  started: (started) => {
    ({ gateway, market } = started);
  },
});

describe("canaries of a host in Anthropic's format, without log-probabilities", () => {
  it("reach the agent in its format and are checked against the reference's samples", async () => {
    const host = await connectHostileHost(gateway, market, processes, "anthropic-honest");
    const token = await gateway.createFundedToken(50_000_000n);
    const jobs = 6;
    for (let index = 0; index < jobs; index += 1) {
      const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "marketplace-only" },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          max_tokens: 300,
          temperature: 0.7,
          system: "You answer questions about the sea.",
          messages: [{ role: "user", content: `Question ${index}: why is the sea salty?` }],
        }),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    const canaryChecks = async () =>
      gateway.app.database.db
        .select({ kind: hostTrustEvents.kind, evidence: hostTrustEvents.evidence })
        .from(hostTrustEvents)
        .where(and(eq(hostTrustEvents.hostId, host.providerId), eq(hostTrustEvents.kind, "canary_pass")));
    await expect.poll(async () => (await canaryChecks()).length).toBeGreaterThanOrEqual(2);
    for (const check of await canaryChecks())
      expect(check.evidence).toMatchObject({ method: "resampled", samples, canary: expect.anything() });
    // Canaries reached the agent as jobs in its own format, among its real ones.
    const output = processes.at(-1)?.output() ?? "";
    expect(output.match(/"format":"anthropic"/g)?.length).toBeGreaterThan(jobs);
    expect(output).not.toContain('"format":"openai"');
    expect(gateway.app.routing.reputation.standing(host.providerId)).toBe("good");
  });
});
