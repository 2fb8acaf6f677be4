import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { inferenceClient } from "../../helpers/inference-client";
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

type ErrorBody = { error: { type: string; message: string; details?: Record<string, unknown> } };

const mode = (value: string) => ({ "X-Pod-Routing-Mode": value });
const pin = (value: string, extra: Record<string, string> = {}) => ({ "X-Pod-Providers": value, ...extra });

describe("X-Pod-Routing-Mode", () => {
  it("auto (the default) prefers the marketplace; centralized-only skips it; marketplace-only never goes centralized", async () => {
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 300_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    expect((await client.chat()).headers.get("x-pod-provider-id")).toBe(relay.providerId);
    expect((await client.chat({ headers: mode("auto") })).headers.get("x-pod-provider-id")).toBe(
      relay.providerId,
    );
    const centralized = await client.chat({ headers: mode("centralized-only") });
    expect(centralized.headers.get("x-pod-route")).toBe("centralized");
    expect(centralized.headers.get("x-pod-provider-id")).toBe("openai");
    const marketOnly = await client.chat({ headers: mode("marketplace-only") });
    expect(marketOnly.headers.get("x-pod-provider-id")).toBe(relay.providerId);
  });

  it("marketplace-only with no supply for the model is a 503 no_provider, and with supply only above the ceilings a 402", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    const empty = await client.chat({ headers: mode("marketplace-only") });
    expect(empty.status).toBe(503);
    expect(((await empty.json()) as ErrorBody).error.type).toBe("no_provider");

    await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 300_000 }],
    });
    const priced = await client.chat({
      headers: { ...mode("marketplace-only"), "X-Pod-Max-Price-Output": "200000" },
    });
    expect(priced.status).toBe(402);
    expect(((await priced.json()) as ErrorBody).error.details).toEqual({
      suggested_min_input_per_1m: 100_000,
      suggested_min_output_per_1m: 300_000,
    });
  });

  it("a failing marketplace source falls back to centralized in auto, never in marketplace-only", async () => {
    await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 300_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    const auto = await client.chat({ content: "[fake:fail=fake-together] hi" });
    expect(auto.headers.get("x-pod-route")).toBe("centralized");
    const strict = await client.chat({
      content: "[fake:fail=fake-together] hi",
      headers: mode("marketplace-only"),
    });
    expect(strict.status).toBe(502);
    expect((await gateway.balanceOf(token)).held).toBe(0n);
  });

  it.each(["cheapest", "marketplace", "AUTO!"])(
    "an unknown mode %s is a 400 in the caller's dialect",
    async (value) => {
      const token = await gateway.createFundedToken(1_000_000n);
      const openai = await inferenceClient(gateway, token).chat({ headers: mode(value) });
      expect(openai.status).toBe(400);
      expect(((await openai.json()) as ErrorBody).error.message).toContain(
        "auto, marketplace-only, centralized-only",
      );
      const anthropic = await inferenceClient(gateway, token).messages({ headers: mode(value) });
      expect(anthropic.status).toBe(400);
      expect(await anthropic.json()).toMatchObject({
        type: "error",
        error: { type: "invalid_request_error", code: "bad_request" },
      });
    },
  );
});

describe("X-Pod-Providers pinning", () => {
  it("order is the try order, whatever the prices", async () => {
    await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 1_000, output: 1_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    expect((await client.chat({ headers: pin("openrouter,openai") })).headers.get("x-pod-provider-id")).toBe(
      "openrouter",
    );
    expect((await client.chat({ headers: pin("openai,openrouter") })).headers.get("x-pod-provider-id")).toBe(
      "openai",
    );
    const failover = await client.chat({
      headers: pin("openrouter,openai"),
      content: "[fake:fail=fake-openrouter] hi",
    });
    expect(failover.headers.get("x-pod-provider-id")).toBe("openai");
  });

  it("a marketplace or relay provider id can be pinned, alone or mixed with names", async () => {
    const cheap = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 1_000, output: 1_000 }],
    });
    const dear = await market.relay({
      upstream: "groq",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 500_000 }],
    });
    const agent = await market.agent({ offers: [{ model: "gpt-4o-mini", input: 50_000, output: 50_000 }] });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    const pinned = await client.chat({ headers: pin(dear.providerId) });
    expect(pinned.headers.get("x-pod-route")).toBe("key-relay");
    expect(pinned.headers.get("x-pod-provider-id")).toBe(dear.providerId);
    const mixed = await client.chat({ headers: pin(`${agent.host.providerId},openai,${cheap.providerId}`) });
    expect(mixed.headers.get("x-pod-route")).toBe("marketplace");
    expect(mixed.headers.get("x-pod-provider-id")).toBe(agent.host.providerId);
    const fallthrough = await client.chat({
      headers: pin(`${dear.providerId},openai`),
      content: "[fake:fail=fake-groq] hi",
    });
    expect(fallthrough.headers.get("x-pod-provider-id")).toBe("openai");
  });

  it("a pin is a hard constraint: when the pinned providers fail, the request fails instead of falling back", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat({
      headers: pin("openai"),
      content: "[fake:fail=fake-openai] hi",
    });
    expect(response.status).toBe(502);
    expect(
      gateway.openrouter.requests.some((request) =>
        JSON.stringify(request.body).includes("[fake:fail=fake-openai] hi"),
      ),
    ).toBe(false);
    expect(await gateway.balanceOf(token)).toEqual({ balance: 1_000_000n, held: 0n, available: 1_000_000n });
  });

  it("an unknown name is a 400 listing the valid names; so is a provider id nobody enrolled", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    const typo = await client.chat({ headers: pin("openai,opnerouter") });
    expect(typo.status).toBe(400);
    const body = (await typo.json()) as ErrorBody;
    expect(body.error.message).toContain("opnerouter");
    // Every name the reference service documents stays valid; ours (the dev simulator) come on top.
    expect(body.error.details?.valid_names).toEqual(
      expect.arrayContaining([
        "anthropic",
        "openai",
        "bedrock",
        "venice",
        "together",
        "groq",
        "openrouter",
        "nousresearch",
        "google",
        "surplus",
        "c0mpute",
        "uomi",
        "simulator",
      ]),
    );
    const stranger = await client.chat({ headers: pin("5f0c2d4e-1b7a-4c3d-9e8f-0a1b2c3d4e5f") });
    expect(stranger.status).toBe(400);
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n);
  });

  it("a pin nobody can serve is a 503 naming the pin", async () => {
    const pending = await market.relay({
      upstream: "together",
      activate: false,
      listings: [{ model: "gpt-4o-mini", input: 1, output: 1 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    for (const value of ["venice", "bedrock,together", pending.providerId]) {
      const response = await client.chat({ headers: pin(value) });
      expect(response.status).toBe(503);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.type).toBe("no_provider");
      expect(body.error.message).toContain(value.toLowerCase());
    }
  });

  it("pins compose with the ceilings", async () => {
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 300_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    const skipsDear = await client.chat({
      headers: pin(`openai,${relay.providerId}`, { "X-Pod-Max-Price-Input": "120000" }),
    });
    expect(skipsDear.headers.get("x-pod-provider-id")).toBe(relay.providerId);
    const tooDear = await client.chat({ headers: pin("openai", { "X-Pod-Max-Price-Output": "500000" }) });
    expect(tooDear.status).toBe(402);
    expect(((await tooDear.json()) as ErrorBody).error.details).toEqual({
      suggested_min_input_per_1m: 150_000,
      suggested_min_output_per_1m: 600_000,
    });
  });

  it("contradictions are 400s: a pin with marketplace-only, a provider id with centralized-only", async () => {
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 300_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    expect((await client.chat({ headers: pin("openai", mode("marketplace-only")) })).status).toBe(400);
    expect((await client.chat({ headers: pin(relay.providerId, mode("marketplace-only")) })).status).toBe(
      400,
    );
    expect((await client.chat({ headers: pin(relay.providerId, mode("centralized-only")) })).status).toBe(
      400,
    );
    expect(
      (await client.chat({ headers: pin("openrouter", mode("centralized-only")) })).headers.get(
        "x-pod-provider-id",
      ),
    ).toBe("openrouter");
  });
});
