import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";

/**
 * The public feed lists the reference's three row shapes: per token, per request and image,
 * so clients written against the reference read it unchanged.
 */
let gateway: TestGateway;

beforeAll(async () => {
  // x402 quotes need a receiving wallet and a SOL price; no chain is touched to quote.
  gateway = await startTestGateway({
    env: { X402_PAY_TO: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS", SOL_PRICE_USD: "150" },
  });
});
afterAll(async () => {
  await gateway.close();
});

type Row = Record<string, unknown>;

async function feedRow(modelId: string): Promise<Row | undefined> {
  const response = await fetch(`${gateway.baseUrl}/v1/marketplace/models`);
  const { models } = (await response.json()) as { models: Row[] };
  return models.find((row) => row.model_id === modelId);
}

const admin = (path: string, body: unknown) =>
  fetch(`${gateway.baseUrl}${path}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("the marketplace feed's row shapes", () => {
  it("an image model: modality image, per image and per edit, no per-token fields", async () => {
    const row = await feedRow("dall-e-2");
    expect(row).toMatchObject({
      modality: "image",
      centralized_price_per_image: 20_000,
      cheapest_price_per_image: 20_000,
      cheapest_price_per_edit: 20_000,
      centralized_providers: [{ provider: "openai", price_per_image: 20_000, price_per_edit: 20_000 }],
      kind: "image",
      pricing: { per_image: 20_000, per_edit: 20_000 },
    });
    expect(Object.keys(row ?? {}).filter((field) => field.endsWith("_per_1m"))).toEqual([]);
    // dall-e-3 edits nothing: the feed says so with null, as the reference does for a missing price.
    expect(await feedRow("dall-e-3")).toMatchObject({
      cheapest_price_per_image: 40_000,
      cheapest_price_per_edit: null,
    });
  });

  it("a per-token model keeps the reference's per-token row", async () => {
    expect(await feedRow("gpt-4o-mini")).toMatchObject({
      pricing_mode: "per_token",
      cheapest_input_per_1m: 150_000,
      cheapest_output_per_1m: 600_000,
    });
  });

  it("a model sold per request: pricing_mode per_request, request_price_microunits, token prices null", async () => {
    expect(
      (
        await admin("/v1/admin/catalog/models/fixed-house", {
          owned_by: "acme",
          context_window: 8_000,
          max_output_tokens: 1_000,
        })
      ).status,
    ).toBe(201);
    const priced = await admin("/v1/admin/catalog/models/fixed-house/prices/openai", {
      upstream_model_id: "gpt-4o-mini",
      request_price_microunits: 100_000,
    });
    expect(priced.status).toBe(200);
    expect(await feedRow("fixed-house")).toMatchObject({
      pricing_mode: "per_request",
      request_price_microunits: 100_000,
      cheapest_input_per_1m: null,
      cheapest_output_per_1m: null,
      centralized_input_per_1m: null,
      centralized_output_per_1m: null,
      centralized_providers: [
        {
          provider: "openai",
          input_per_1m: null,
          output_per_1m: null,
          request_price_microunits: 100_000,
          performance: null,
        },
      ],
      pricing: { request_price_microunits: 100_000 },
    });
    // Token rates beside a request price are a contradiction, refused.
    const both = await admin("/v1/admin/catalog/models/fixed-house/prices/openai", {
      input_per_1m: 1,
      output_per_1m: 1,
      request_price_microunits: 100_000,
    });
    expect(both.status).toBe(400);
  });
});

describe("a centralized price per request", () => {
  const chat = (token: string, headers: Record<string, string>, content: string) =>
    fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ model: "fixed-house", messages: [{ role: "user", content }] }),
    });

  it("is held and charged at its price whatever the token counts", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const short = await chat(token, {}, "hi");
    const long = await chat(token, {}, "a much longer question ".repeat(200));
    expect([short.status, long.status], await short.clone().text()).toEqual([200, 200]);
    expect(short.headers.get("x-pod-cost-microunits")).toBe("100000");
    expect(long.headers.get("x-pod-cost-microunits")).toBe("100000");
    expect(long.headers.get("x-balance-remaining")).toBe("800000");
  });

  it("a request ceiling below the price, or token ceilings alone, refuse it before anything is held", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const calls = gateway.openai.requests.length;
    const below = await chat(token, { "x-pod-max-price-request": "99999" }, "hi");
    expect(below.status).toBe(402);
    expect(await below.json()).toMatchObject({
      error: { type: "no_provider_at_price", details: { suggested_min_request_price: 100_000 } },
    });
    const tokensOnly = await chat(token, { "x-pod-max-price-input": "1000000000" }, "hi");
    expect(tokensOnly.status).toBe(402);
    expect(gateway.openai.requests.length).toBe(calls);
    const at = await chat(token, { "x-pod-max-price-request": "100000" }, "hi");
    expect(at.status).toBe(200);
    expect(at.headers.get("x-balance-remaining")).toBe("900000");
  });
});

describe("an x402 quote for a model sold per request", () => {
  it("caps the payment at the request price, whatever the output limit", async () => {
    const quote = async (maxTokens: number) => {
      const response = await fetch(`${gateway.baseUrl}/proxy/x402/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "fixed-house",
          max_tokens: maxTokens,
          messages: [{ role: "user", content: "hi" }],
        }),
      });
      expect(response.status).toBe(402);
      const body = (await response.json()) as {
        error: {
          details: { payment_required: { accepts: Array<{ amount_microunits: number; asset: string }> } };
        };
      };
      return body.error.details.payment_required.accepts.map((entry) => entry.amount_microunits);
    };
    // The USDC entries ask exactly the price; a per-token model's quote would grow with max_tokens.
    expect(await quote(16)).toContain(100_000);
    expect(await quote(1_000)).toContain(100_000);
  });
});
