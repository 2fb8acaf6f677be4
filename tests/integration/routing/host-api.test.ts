import { hostListingSchema, hostListingsSchema } from "@pod-gateway/contracts/host-api";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { relayKeys } from "../../../lib/db/schema";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import { inferenceClient } from "../../helpers/inference-client";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";

let gateway: TestGateway;
let market: MarketplaceFixture;

beforeAll(async () => {
  gateway = await startTestGateway({ extraUpstreams: ["together"] });
  market = createMarketplaceFixture(gateway);
});
afterEach(async () => {
  await market.cleanup();
});
afterAll(async () => {
  await gateway.close();
});

const wallet = "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS";
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("host enrolment", () => {
  it("returns a host token, a provider id and a bond deposit code; the host stays pending until activated", async () => {
    const response = await post("/v1/host/enroll", {
      display_name: "rack 7",
      wallet,
      contact_email: "ops@example.com",
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown> & {
      host_token: string;
      provider_id: string;
    };
    expect(body).toMatchObject({
      host_token: expect.stringMatching(/^pod_host_[A-Za-z0-9]{40}$/),
      provider_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      enrollment_code: expect.stringMatching(/^POD-ENROLL-[A-Z2-9]{8}$/),
      status: "pending",
      bond: {
        deposit_code: expect.stringMatching(/^POD-BOND-[A-Z2-9]{8}$/),
        amount_usdc: 50,
        amount_microunits: 50_000_000,
      },
    });
    const profile = await fetch(`${gateway.baseUrl}/v1/host/profile`, {
      headers: { authorization: `Bearer ${body.host_token}` },
    });
    expect(await profile.json()).toMatchObject({
      provider_id: body.provider_id,
      status: "pending",
      display_name: "rack 7",
    });

    expect((await post(`/v1/admin/hosts/${body.provider_id}/activate`, {})).status).toBe(401);
    expect(
      (
        await post(
          `/v1/admin/hosts/${body.provider_id}/activate`,
          {},
          { authorization: `Bearer ${testAdminToken}` },
        )
      ).status,
    ).toBe(200);
    const active = await fetch(`${gateway.baseUrl}/v1/host/profile`, {
      headers: { authorization: `Bearer ${body.host_token}` },
    });
    expect(await active.json()).toMatchObject({ status: "active", activated_at: expect.any(String) });
  });

  it.each([
    [{ wallet }, "display_name"],
    [{ display_name: "x", wallet: "not-a-wallet" }, "wallet"],
    [{ display_name: "x", wallet, contact_email: "nope" }, "contact_email"],
  ])("a bad enrolment body is a 400 naming the field (%j)", async (body, field) => {
    const response = await post("/v1/host/enroll", body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(field);
  });

  it.each([
    [undefined, 401],
    ["Bearer pod_host_short", 401],
    [`Bearer pod_host_${"a".repeat(40)}`, 401],
  ])("host endpoints need a valid host token (%s)", async (authorization, status) => {
    const response = await fetch(`${gateway.baseUrl}/v1/host/relay-keys`, {
      headers: authorization ? { authorization } : {},
    });
    expect(response.status).toBe(status);
  });
});

describe("relay keys and listings", () => {
  it("a relay key is encrypted at rest and never returned", async () => {
    const host = await market.enroll();
    const secret = "sk-very-secret-upstream-key-123";
    const added = await host.call("POST", "/v1/host/relay-keys", {
      upstream: "together",
      api_key: secret,
      label: "main",
    });
    expect(added.status).toBe(201);
    const addedText = await added.text();
    expect(addedText).not.toContain(secret);
    const { id } = JSON.parse(addedText) as { id: string };
    const listed = await host.call("GET", "/v1/host/relay-keys");
    const listedText = await listed.text();
    expect(listedText).not.toContain(secret);
    expect(JSON.parse(listedText)).toMatchObject({
      relay_keys: [{ id, upstream: "together", label: "main", revoked_at: null }],
    });
    const [row] = await gateway.app.database.db.select().from(relayKeys).where(eq(relayKeys.id, id));
    expect(row?.ciphertext).toMatch(/^v1:/);
    expect(row?.ciphertext).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it("rejects an unknown upstream kind", async () => {
    const host = await market.enroll();
    const response = await host.call("POST", "/v1/host/relay-keys", {
      upstream: "bedrock",
      api_key: "sk-12345678",
    });
    expect(response.status).toBe(400);
  });

  it("listings: canonical model ids, cap visibility, validation, delete", async () => {
    const relay = await market.relay({ upstream: "together", listings: [] });
    const put = (body: Record<string, unknown>) =>
      relay.call("PUT", "/v1/host/listings", {
        relay_key_id: relay.relayKeyId,
        input_per_1m: 100_000,
        output_per_1m: 300_000,
        ...body,
      });

    const ok = await put({ model: "openai/gpt-4o-mini-2024-07-18", daily_cap_usdc: "2.5" });
    expect(ok.status).toBe(200);
    const listing = await ok.json();
    // The answer is the contract the provider page reads, with no field outside it.
    expect(hostListingSchema.parse(listing)).toStrictEqual(listing);
    const listings = await (await relay.call("GET", "/v1/host/listings")).json();
    expect(hostListingsSchema.parse(listings)).toStrictEqual(listings);
    expect(listing).toMatchObject({
      model: "gpt-4o-mini",
      upstream: "together",
      upstream_model_id: "gpt-4o-mini",
      daily_cap_usdc: "2.5",
      centralized_cap: { input_per_1m: 150_000, output_per_1m: 600_000 },
      within_cap: true,
      excluded_reason: null,
    });
    const above = await put({ model: "gpt-4o-mini", output_per_1m: 700_000 });
    expect(await above.json()).toMatchObject({ within_cap: false, excluded_reason: "above_centralized_cap" });

    expect((await put({ model: "no-such-model" })).status).toBe(404);
    expect((await put({ model: "gpt-4o-mini", input_per_1m: -1 })).status).toBe(400);
    expect((await put({ model: "gpt-4o-mini", input_per_1m: 1.5 })).status).toBe(400);
    expect((await put({ model: "gpt-4o-mini", daily_cap_usdc: "1.1234567" })).status).toBe(400);
    expect(
      (await put({ model: "gpt-4o-mini", relay_key_id: "5f0c2d4e-1b7a-4c3d-9e8f-0a1b2c3d4e5f" })).status,
    ).toBe(404);

    const deleted = await relay.call("DELETE", "/v1/host/listings/gpt-4o-mini");
    expect(deleted.status).toBe(200);
    expect(await (await relay.call("GET", "/v1/host/listings")).json()).toEqual({ listings: [] });
    expect((await relay.call("DELETE", "/v1/host/listings/gpt-4o-mini")).status).toBe(404);
  });

  it("revoking a key erases it and takes its listings out of routing", async () => {
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 1_000, output: 1_000 }],
    });
    const token = await gateway.createFundedToken(1_000_000n);
    expect((await inferenceClient(gateway, token).chat()).headers.get("x-pod-provider-id")).toBe(
      relay.providerId,
    );
    const revoked = await relay.call("DELETE", `/v1/host/relay-keys/${relay.relayKeyId}`);
    expect(revoked.status).toBe(200);
    const [row] = await gateway.app.database.db
      .select()
      .from(relayKeys)
      .where(eq(relayKeys.id, relay.relayKeyId));
    expect(row?.ciphertext).toBeNull();
    expect((await inferenceClient(gateway, token).chat()).headers.get("x-pod-route")).toBe("centralized");
    expect(await (await relay.call("GET", "/v1/host/listings")).json()).toMatchObject({
      listings: [{ enabled: false, excluded_reason: "disabled" }],
    });
  });

  it("one host cannot touch another's keys", async () => {
    const owner = await market.relay({ upstream: "together", listings: [] });
    const other = await market.enroll();
    expect((await other.call("DELETE", `/v1/host/relay-keys/${owner.relayKeyId}`)).status).toBe(404);
    const listing = await other.call("PUT", "/v1/host/listings", {
      model: "gpt-4o-mini",
      relay_key_id: owner.relayKeyId,
      input_per_1m: 1,
      output_per_1m: 1,
    });
    expect(listing.status).toBe(404);
  });
});

describe("public catalogue", () => {
  it("GET /v1/marketplace/models reports cheapest, centralized and marketplace supply per model", async () => {
    const empty = (await (await fetch(`${gateway.baseUrl}/v1/marketplace/models`)).json()) as {
      models: Array<Record<string, unknown>>;
    };
    const row = empty.models.find((row) => row.model_id === "gpt-4o-mini");
    // Measured figures are there once a source served the model (earlier tests here did).
    const providers = row?.centralized_providers as Array<{ performance: unknown; uptime_last_30m: unknown }>;
    for (const provider of providers) {
      expect(provider.performance === null || typeof provider.performance === "object").toBe(true);
      expect(provider.uptime_last_30m === null || typeof provider.uptime_last_30m === "number").toBe(true);
    }
    const withoutFigures = providers.map(
      ({ performance: _performance, uptime_last_30m: _uptime, ...rest }) => rest,
    );
    expect({ ...row, centralized_providers: withoutFigures }).toEqual({
      model_id: "gpt-4o-mini",
      pricing_mode: "per_token",
      cheapest_input_per_1m: 150_000,
      cheapest_output_per_1m: 600_000,
      centralized_input_per_1m: 150_000,
      centralized_output_per_1m: 600_000,
      centralized_providers: [
        { provider: "openai", input_per_1m: 150_000, output_per_1m: 600_000, route: "centralized" },
        { provider: "openrouter", input_per_1m: 150_000, output_per_1m: 600_000, route: "centralized" },
      ],
      marketplace_providers: [],
      marketplace_provider_count: 0,
      marketplace_total_tps: 0,
      marketplace_measured_tps: 0,
      uncensored: false,
      // The catalog's metadata, as GET /v1/models gives it.
      name: "gpt-4o-mini",
      kind: "chat",
      context_length: 128_000,
      max_output_tokens: 16_384,
      input_modalities: ["text", "image"],
      output_modalities: ["text"],
      capabilities: { tools: true, vision: true, reasoning: false, structured_output: true },
      pricing: {
        input_per_1m: 150_000,
        output_per_1m: 600_000,
        cache_read_per_1m: 75_000,
        cache_write_per_1m: 150_000,
      },
      free: false,
      provider_count: 2,
      aliases: ["openai/gpt-4o-mini", "gpt-4o-mini-2024-07-18"],
    });

    await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 400_000 }],
    });
    await market.agent({
      tokensPerSecond: 42.5,
      offers: [{ model: "openai/gpt-4o-mini", input: 120_000, output: 300_000 }],
    });
    await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 1, output: 900_000 }],
    });
    const response = await fetch(`${gateway.baseUrl}/v1/marketplace/models`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { models: Array<Record<string, unknown>> };
    expect(body.models.find((row) => row.model_id === "gpt-4o-mini")).toMatchObject({
      cheapest_input_per_1m: 120_000,
      cheapest_output_per_1m: 300_000,
      marketplace_provider_count: 2,
      marketplace_total_tps: 42.5,
    });
    // Each host and relay as the endpoints listing shows it: the same route, price and figures.
    const supplied = body.models.find((entry) => entry.model_id === "gpt-4o-mini");
    const listed = supplied?.marketplace_providers as Array<Record<string, unknown>>;
    const endpoints = (await (await fetch(`${gateway.baseUrl}/v1/models/gpt-4o-mini/endpoints`)).json()) as {
      data: { endpoints: Array<Record<string, unknown>> };
    };
    const hostsAndRelays = endpoints.data.endpoints.filter((endpoint) => endpoint.route !== "centralized");
    expect(
      listed.map((entry) => [entry.provider, entry.route, entry.input_per_1m, entry.output_per_1m]),
    ).toEqual(
      hostsAndRelays.map((endpoint) => [
        endpoint.tag,
        endpoint.route,
        endpoint.input_per_1m,
        endpoint.output_per_1m,
      ]),
    );
    expect(listed.find((entry) => entry.route === "marketplace")).toMatchObject({
      input_per_1m: 120_000,
      announced_tokens_per_second: 42.5,
      uptime_last_30m: null,
    });
    expect(new Set(listed.map((entry) => entry.route))).toEqual(new Set(["marketplace", "key-relay"]));
  });

  it("GET /v1/providers lists active providers with their models and prices, never pending ones", async () => {
    const relay = await market.relay({
      upstream: "together",
      listings: [{ model: "gpt-4o-mini", input: 100_000, output: 400_000 }],
    });
    const pending = await market.relay({
      upstream: "together",
      activate: false,
      listings: [{ model: "gpt-4o", input: 1, output: 1 }],
    });
    const agent = await market.agent({ offers: [{ model: "deepseek-v3", input: 200_000, output: 900_000 }] });
    const body = (await (await fetch(`${gateway.baseUrl}/v1/providers`)).json()) as {
      providers: Array<{ provider_id: string; kind: string; routes: string[]; models: unknown[] }>;
    };
    const ids = body.providers.map((provider) => provider.provider_id);
    expect(ids).toEqual(
      expect.arrayContaining(["openai", "openrouter", "anthropic", relay.providerId, agent.host.providerId]),
    );
    expect(ids).not.toContain(pending.providerId);
    expect(body.providers.find((provider) => provider.provider_id === relay.providerId)).toMatchObject({
      kind: "host",
      routes: ["key-relay"],
      models: [
        {
          model_id: "gpt-4o-mini",
          route: "key-relay",
          input_per_1m: 100_000,
          output_per_1m: 400_000,
          within_cap: true,
        },
      ],
    });
    expect(body.providers.find((provider) => provider.provider_id === agent.host.providerId)).toMatchObject({
      routes: ["marketplace"],
      models: [{ model_id: "deepseek-v3", route: "marketplace", within_cap: true }],
    });
    expect(JSON.stringify(body)).not.toContain("sk-relay");
  });
});
