import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { expectedCost, inferenceClient } from "../../helpers/inference-client";
import { providerBalance, treasuryBalance } from "../../helpers/ledger-accounts";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";

let gateway: TestGateway;
let market: MarketplaceFixture;

beforeAll(async () => {
  gateway = await startTestGateway({ extraUpstreams: ["together", "groq"] });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  await market.cleanup();
});
afterAll(async () => {
  await gateway.close();
});

interface ChatBody {
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
}

describe("matching: cheapest eligible source among relays, marketplace agents and centralized", () => {
  it("the cheapest relay serves, with its decrypted key and upstream model id, and the caller's model id in the reply", async () => {
    const cheap = await market.relay({
      upstream: "together",
      listings: [
        {
          model: "gpt-4o-mini",
          input: 100_000,
          output: 400_000,
          upstreamModelId: "vendor/gpt-4o-mini-tuned",
        },
      ],
    });
    await market.relay({
      upstream: "groq",
      listings: [{ model: "gpt-4o-mini", input: 120_000, output: 500_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat({ model: "openai/gpt-4o-mini-2024-07-18" });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-pod-route")).toBe("key-relay");
    expect(response.headers.get("x-pod-provider-id")).toBe(cheap.providerId);
    const body = (await response.json()) as ChatBody;
    expect(body.model).toBe("openai/gpt-4o-mini-2024-07-18");
    const upstream = gateway.extraUpstreams.together?.requests.at(-1);
    expect(upstream?.headers.authorization).toBe(`Bearer ${cheap.apiKey}`);
    expect(upstream?.body.model).toBe("vendor/gpt-4o-mini-tuned");
  });

  it("the cap: a listing above the cheapest centralized price on either axis is never selected", async () => {
    // gpt-4o-mini's cheapest centralized price is 150000 in / 600000 out.
    await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 1, output: 600_001 }],
    });
    await market.relay({ upstream: "groq", listings: [{ model: "gpt-4o-mini", input: 150_001, output: 1 }] });
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat();
    expect(response.headers.get("x-pod-route")).toBe("centralized");
    expect(response.headers.get("x-pod-provider-id")).toBe("openai");

    const atCap = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 150_000, output: 600_000 }],
    });
    const again = await inferenceClient(gateway, token).chat();
    expect(again.headers.get("x-pod-provider-id")).toBe(atCap.providerId);
  });

  it("a marketplace agent cheaper than every relay serves, through the dispatch interface", async () => {
    await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 400_000 }],
    });
    const agent = await market.agent({ offers: [{ model: "gpt-4o-mini", input: 90_000, output: 300_000 }] });
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat({ stream: true });
    expect(response.headers.get("x-pod-route")).toBe("marketplace");
    expect(response.headers.get("x-pod-provider-id")).toBe(agent.host.providerId);
    expect(await response.text()).toContain("[DONE]");
    expect(agent.backend.requests).toHaveLength(1);
  });

  it("price ties go to the lower input price, then to the earliest enrolment", async () => {
    const first = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 300_000 }],
    });
    await market.relay({
      upstream: "groq",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 300_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    expect((await inferenceClient(gateway, token).chat()).headers.get("x-pod-provider-id")).toBe(
      first.providerId,
    );

    const lowerInput = await market.agent({
      offers: [{ model: "gpt-4o-mini", input: 50_000, output: 350_000 }],
    });
    expect((await inferenceClient(gateway, token).chat()).headers.get("x-pod-provider-id")).toBe(
      lowerInput.host.providerId,
    );
  });

  it("marketplace agents need a live connection and a free slot", async () => {
    const busy = await market.agent({
      offers: [{ model: "gpt-4o-mini", input: 10_000, output: 10_000, maxConcurrent: 1 }],
    });
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 300_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    const slow = await client.chat({ stream: true, content: "long [fake:tokens=30] [fake:slow=20]" });
    expect(slow.headers.get("x-pod-provider-id")).toBe(busy.host.providerId);
    const meanwhile = await client.chat();
    expect(meanwhile.headers.get("x-pod-provider-id")).toBe(relay.providerId);
    await slow.text();
    expect((await client.chat()).headers.get("x-pod-provider-id")).toBe(busy.host.providerId);

    busy.connection.disconnect();
    expect((await client.chat()).headers.get("x-pod-provider-id")).toBe(relay.providerId);
  });

  it("only active hosts serve: a pending or suspended host is skipped", async () => {
    await market.relay({
      upstream: "together",
      activate: false,
      listings: [{ model: "gpt-4o-mini", input: 1_000, output: 1_000 }],
    });
    const suspended = await market.relay({
      upstream: "groq",
      listings: [{ model: "gpt-4o-mini", input: 2_000, output: 2_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    expect((await inferenceClient(gateway, token).chat()).headers.get("x-pod-provider-id")).toBe(
      suspended.providerId,
    );
    await market.adminPost(`/v1/admin/hosts/${suspended.providerId}/suspend`);
    expect((await inferenceClient(gateway, token).chat()).headers.get("x-pod-route")).toBe("centralized");
  });

  it("settles 80/20: the user's debit, the provider's 80% and the treasury's 20% in the ledger", async () => {
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 400_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const treasuryBefore = await treasuryBalance(gateway);
    const response = await inferenceClient(gateway, token).chat({
      content: "pay me [fake:tokens=40]",
      maxTokens: 100,
    });
    const body = (await response.json()) as ChatBody;
    const gross = expectedCost(
      { input: body.usage.prompt_tokens, output: body.usage.completion_tokens },
      { input: 100_000, output: 400_000 },
    );
    expect(gross).toBeGreaterThan(0n);
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n - gross);
    const providerShare = (gross * 80n) / 100n;
    expect(await providerBalance(gateway, relay.providerId)).toBe(providerShare);
    expect((await treasuryBalance(gateway)) - treasuryBefore).toBe(gross - providerShare);
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });
});
