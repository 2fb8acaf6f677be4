import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { expectedCost, inferenceClient } from "../../helpers/inference-client";
import { providerBalance } from "../../helpers/ledger-accounts";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";

let gateway: TestGateway;
let market: MarketplaceFixture;

beforeAll(async () => {
  // Small thresholds so demotion shows in a few requests: ≥2 attempts at ≥50% failures, or a
  // mean time to headers of ≥250 ms over ≥2 successes.
  gateway = await startTestGateway({
    extraUpstreams: ["together", "groq", "venice"],
    health: { minAttempts: 2, maxFailureRate: 0.5, minLatencySamples: 2, maxMeanTimeToHeadersMs: 250 },
  });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  await market.cleanup();
});
afterAll(async () => {
  await gateway.close();
});

type ChatBody = { usage: { prompt_tokens: number; completion_tokens: number } };

describe("failover before the first byte", () => {
  it("a failing relay is skipped for the next one, then centralized; only the source that served earns or bills", async () => {
    const first = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4.1-mini", input: 100_000, output: 400_000 }],
    });
    const second = await market.relay({
      upstream: "groq",
      listings: [{ model: "gpt-4.1-mini", input: 200_000, output: 800_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);

    const once = await client.chat({
      model: "gpt-4.1-mini",
      content: "[fake:fail=fake-together] [fake:tokens=10] hi",
    });
    expect(once.headers.get("x-pod-provider-id")).toBe(second.providerId);
    const body = (await once.json()) as ChatBody;
    const cost = expectedCost(
      { input: body.usage.prompt_tokens, output: body.usage.completion_tokens },
      { input: 200_000, output: 800_000 },
    );
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n - cost);
    expect(await providerBalance(gateway, first.providerId)).toBe(0n);
    expect(await providerBalance(gateway, second.providerId)).toBe((cost * 80n) / 100n);

    const both = await client.chat({
      model: "gpt-4.1-mini",
      content: "[fake:fail=fake-together] [fake:fail=fake-groq] hi",
      stream: true,
    });
    expect(both.headers.get("x-pod-route")).toBe("centralized");
    expect(await both.text()).toContain("[DONE]");
    expect(await providerBalance(gateway, first.providerId)).toBe(0n);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });

  it("a failing marketplace agent is skipped too", async () => {
    const agent = await market.agent({ offers: [{ model: "gpt-4.1-mini", input: 10_000, output: 10_000 }] });
    const relay = await market.relay({
      upstream: "venice",
      listings: [{ model: "gpt-4.1-mini", input: 300_000, output: 900_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat({
      model: "gpt-4.1-mini",
      content: `[fake:fail=${agent.backendName}] hi`,
    });
    expect(response.headers.get("x-pod-provider-id")).toBe(relay.providerId);
    expect(agent.backend.requests).toHaveLength(1);
    expect(await providerBalance(gateway, agent.host.providerId)).toBe(0n);
  });

  it("after the first byte an error is in-band: the stream ends with an error event, no failover", async () => {
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "deepseek-v3", input: 100_000, output: 400_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat({
      model: "deepseek-v3",
      stream: true,
      content: "[fake:tokens=10] [fake:cut=3] hi",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-pod-provider-id")).toBe(relay.providerId);
    const text = await response.text();
    expect(text).toContain('"error"');
    expect(text).not.toContain("[DONE]");
    await expect.poll(async () => (await gateway.balanceOf(token)).held).toBe(0n);
  });
});

describe("health demotion", () => {
  it("a relay that keeps failing moves behind healthy ones, and still serves when nothing else can", async () => {
    const flaky = await market.relay({
      upstream: "together",
      listings: [{ model: "llama-3.3-70b-instruct", input: 10_000, output: 10_000 }],
    });
    const steady = await market.relay({
      upstream: "groq",
      listings: [{ model: "llama-3.3-70b-instruct", input: 100_000, output: 300_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    const model = "llama-3.3-70b-instruct";
    for (let index = 0; index < 2; index += 1) {
      const response = await client.chat({ model, content: "[fake:fail=fake-together] hi" });
      expect(response.headers.get("x-pod-provider-id")).toBe(steady.providerId);
    }
    const before = gateway.extraUpstreams.together?.requests.length ?? 0;
    const demoted = await client.chat({ model });
    expect(demoted.headers.get("x-pod-provider-id")).toBe(steady.providerId);
    expect(gateway.extraUpstreams.together?.requests.length).toBe(before);

    const lastResort = await client.chat({
      model,
      content: "[fake:fail=fake-groq] hi",
      headers: { "X-Pod-Routing-Mode": "marketplace-only" },
    });
    expect(lastResort.headers.get("x-pod-provider-id")).toBe(flaky.providerId);
  });

  it("an agent whose time to headers is out of band is demoted behind a healthy relay", async () => {
    const slow = await market.agent({
      delayMs: 400,
      offers: [{ model: "claude-sonnet-4-5", input: 100_000, output: 100_000 }],
    });
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "claude-sonnet-4-5", input: 2_000_000, output: 10_000_000 }],
    });
    const token = await gateway.createFundedToken(5_000_000n);
    const client = inferenceClient(gateway, token);
    const model = "claude-sonnet-4-5";
    for (let index = 0; index < 2; index += 1) {
      expect((await client.chat({ model })).headers.get("x-pod-provider-id")).toBe(slow.host.providerId);
    }
    expect((await client.chat({ model })).headers.get("x-pod-provider-id")).toBe(relay.providerId);
  });
});

describe("daily spend cap", () => {
  it("a relay whose last-24h earnings reach its cap leaves routing until the window rolls forward", async () => {
    const capped = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o", input: 1_000_000, output: 5_000_000, dailyCapUsdc: "0.0001" }],
    });
    const token = await gateway.createFundedToken(5_000_000n);
    const client = inferenceClient(gateway, token);
    const first = await client.chat({ model: "gpt-4o", content: "[fake:tokens=50] earn", maxTokens: 60 });
    expect(first.headers.get("x-pod-provider-id")).toBe(capped.providerId);
    expect(await providerBalance(gateway, capped.providerId)).toBeGreaterThanOrEqual(100n);

    const capReached = await client.chat({ model: "gpt-4o" });
    expect(capReached.headers.get("x-pod-route")).toBe("centralized");
    const listings = (await (await capped.call("GET", "/v1/host/listings")).json()) as {
      listings: Array<{ excluded_reason: string | null; daily_cap_usdc: string }>;
    };
    expect(listings.listings[0]).toMatchObject({
      excluded_reason: "daily_cap_reached",
      daily_cap_usdc: "0.0001",
    });

    // Age the earnings past the 24-hour window: the listing is back.
    await gateway.app.database.db.execute(
      sql`UPDATE ledger_entries SET created_at = now() - interval '25 hours'`,
    );
    const back = await client.chat({ model: "gpt-4o" });
    expect(back.headers.get("x-pod-provider-id")).toBe(capped.providerId);
  });
});
