import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { HostFinding, TrustFindingSink } from "../../../lib/providers/trust-finding-sink";
import { type RunningAgent, startHostileAgent } from "../../helpers/agent-process";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";

/**
 * A paid request's settlement never waits on trust: with a trust sink that takes its findings
 * and does not finish storing them until the test says so, an over-claiming agent's request is
 * answered, metered and settled, and the finding is in the sink, still unstored.
 */
let gateway: TestGateway;
let market: MarketplaceFixture;
const processes: RunningAgent[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({ env: { PROVIDER_HEARTBEAT_TIMEOUT_MS: "5000" } });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  for (const agent of processes.splice(0)) await agent.stop();
  await market.cleanup();
});
afterAll(async () => {
  await gateway?.close();
});

/** A sink whose storing is held at a gate: `stored` counts what got past it. */
class GatedSink implements TrustFindingSink {
  readonly received: HostFinding[] = [];
  stored = 0;
  open: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });

  report(findings: readonly HostFinding[]): void {
    this.received.push(...findings);
    this.#gate
      .then(() => {
        this.stored += findings.length;
      })
      .catch(() => undefined);
  }

  idle(): Promise<void> {
    return this.#gate;
  }
}

describe("the trust sink", () => {
  it("a request settles while its host's findings are still unstored", async () => {
    const host = await market.enroll();
    const profile = (await (await host.call("GET", "/v1/host/profile")).json()) as {
      metadata: { enrollment_code: string };
    };
    const agent = startHostileAgent({
      gatewayUrl: gateway.baseUrl,
      enrollmentCode: profile.metadata.enrollment_code,
      attack: "overclaim-body",
    });
    processes.push(agent);
    await agent.waitFor("ready");
    await expect
      .poll(() => gateway.marketplace.liveOffers().some((offer) => offer.providerId === host.providerId))
      .toBe(true);

    const recorder = gateway.app.trustFindings;
    const sink = new GatedSink();
    gateway.app.trustFindings = sink;
    try {
      const token = await gateway.createFundedToken(1_000_000n);
      const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "X-Pod-Routing-Mode": "marketplace-only" },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          max_tokens: 20,
          stream: true,
          messages: [{ role: "user", content: "Say one thing about the sea." }],
        }),
      });
      expect(response.status).toBe(200);
      // A relayed stream settles before its last byte goes out: reading it whole means it settled.
      await response.text();
      const balance = await gateway.balanceOf(token);
      expect(balance.held).toBe(0n);
      expect(balance.balance).toBeLessThan(1_000_000n);

      expect(sink.received.map((finding) => [finding.hostId, finding.kind])).toContainEqual([
        host.providerId,
        "over_claim",
      ]);
      expect(sink.stored).toBe(0);
      sink.open();
      await sink.idle();
      await expect.poll(() => sink.stored).toBe(sink.received.length);
    } finally {
      sink.open();
      gateway.app.trustFindings = recorder;
    }
  });
});
