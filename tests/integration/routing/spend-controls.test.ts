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

const ceilings = (input?: number, output?: number) => ({
  ...(input === undefined ? {} : { "X-Pod-Max-Price-Input": String(input) }),
  ...(output === undefined ? {} : { "X-Pod-Max-Price-Output": String(output) }),
});

/** Two relays: cheap-in (50000/500000) and cheap-out (140000/200000); centralized is 150000/600000. */
async function twoRelays() {
  const cheapInput = await market.relay({
    upstream: "together",
    listings: [{ model: "gpt-4o-mini", input: 50_000, output: 500_000 }],
  });
  const cheapOutput = await market.relay({
    upstream: "groq",
    listings: [{ model: "gpt-4o-mini", input: 140_000, output: 200_000 }],
  });
  return { cheapInput, cheapOutput };
}

describe("spend controls: X-Pod-Max-Price-Input / X-Pod-Max-Price-Output", () => {
  it("without ceilings the cheapest total wins", async () => {
    const { cheapOutput } = await twoRelays();
    const token = await gateway.createFundedToken(1_000_000n);
    expect((await inferenceClient(gateway, token).chat()).headers.get("x-pod-provider-id")).toBe(
      cheapOutput.providerId,
    );
  });

  it("an input ceiling excludes dearer inputs", async () => {
    const { cheapInput } = await twoRelays();
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat({ headers: ceilings(100_000) });
    expect(response.headers.get("x-pod-provider-id")).toBe(cheapInput.providerId);
  });

  it("an output ceiling excludes dearer outputs", async () => {
    const { cheapOutput } = await twoRelays();
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat({ headers: ceilings(undefined, 250_000) });
    expect(response.headers.get("x-pod-provider-id")).toBe(cheapOutput.providerId);
  });

  it("both ceilings apply at once, and a price equal to a ceiling is eligible", async () => {
    const { cheapInput, cheapOutput } = await twoRelays();
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    const both = await client.chat({ headers: ceilings(150_000, 500_000) });
    expect(both.headers.get("x-pod-provider-id")).toBe(cheapOutput.providerId);
    const inclusive = await client.chat({ headers: ceilings(50_000, 500_000) });
    expect(inclusive.headers.get("x-pod-provider-id")).toBe(cheapInput.providerId);
    const neither = await client.chat({ headers: ceilings(100_000, 499_999) });
    expect(neither.status).toBe(402);
  });

  it("ceilings filter centralized providers too", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const client = inferenceClient(gateway, token);
    expect(
      (await client.chat({ headers: ceilings(150_000, 600_000) })).headers.get("x-pod-provider-id"),
    ).toBe("openai");
    expect((await client.chat({ headers: ceilings(149_999) })).status).toBe(402);
  });

  it("nothing at or below the ceilings: 402 no_provider_at_price with suggested minimums, nothing billed", async () => {
    await twoRelays();
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).chat({ headers: ceilings(10, 10) });
    expect(response.status).toBe(402);
    const body = (await response.json()) as {
      error: { type: string; message: string; details: Record<string, number> };
    };
    expect(body.error.type).toBe("no_provider_at_price");
    expect(body.error.details).toEqual({
      suggested_min_input_per_1m: 140_000,
      suggested_min_output_per_1m: 200_000,
    });
    expect(await gateway.balanceOf(token)).toEqual({ balance: 1_000_000n, held: 0n, available: 1_000_000n });

    const suggested = await inferenceClient(gateway, token).chat({ headers: ceilings(140_000, 200_000) });
    expect(suggested.status).toBe(200);
  });

  it("the 402 comes in the caller's dialect", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await inferenceClient(gateway, token).messages({ headers: ceilings(1, 1) });
    expect(response.status).toBe(402);
    expect(await response.json()).toEqual({
      type: "error",
      error: {
        type: "billing_error",
        code: "no_provider_at_price",
        message: "No provider available at your price ceiling.",
        details: { suggested_min_input_per_1m: 150_000, suggested_min_output_per_1m: 600_000 },
      },
      request_id: response.headers.get("request-id"),
    });
  });

  it.each(["-1", "1.5", "1e5", "cheap", "99999999999999999999"])(
    "a malformed ceiling %s is a 400 that moves no money",
    async (value) => {
      const token = await gateway.createFundedToken(1_000_000n);
      const response = await inferenceClient(gateway, token).chat({
        headers: { "X-Pod-Max-Price-Input": value },
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { type: string; param: string } };
      expect(body.error).toMatchObject({ type: "bad_request", param: "X-Pod-Max-Price-Input" });
      expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n);
    },
  );
});
