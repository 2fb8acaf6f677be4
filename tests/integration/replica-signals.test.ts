import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, testAdminToken } from "../helpers/gateway";
import { inferenceClient } from "../helpers/inference-client";
import { testRedis, testSharedPostgres } from "../helpers/services";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

/**
 * A key revoked or rotated, or a price edited, on one replica, used on the other: two gateways
 * on one Postgres and one Redis. Each replica caches keys for KEY_CACHE_MS, set here to a
 * minute, and these test gateways never poll the catalog, so a refusal or a new price on the
 * other replica can only come from the change's signal through Redis.
 */
const redis = testRedis();
const postgres = testSharedPostgres("Key revocation across replicas");
const configured = redis.url !== undefined && postgres.url !== undefined;

describe.skipIf(!configured)("a key changed on one replica, on the other", () => {
  let database: TestDatabase;
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url ?? "",
      REDIS_URL: redis.url ?? "",
      REDIS_NAMESPACE: `revoke-${randomBytes(4).toString("hex")}`,
      KEY_CACHE_MS: "60000",
    };
    first = await startTestGateway({ env });
    second = await startTestGateway({ env });
  }, 90_000);
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await database?.drop();
  });

  async function createKey(token: string) {
    const response = await fetch(`${first.baseUrl}/proxy/${token}/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ label: "on two replicas" }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { api_key: string; key: { id: string } };
  }

  const balanceStatus = async (gateway: TestGateway, credential: string) => {
    const response = await fetch(`${gateway.baseUrl}/proxy/${credential}/balance`);
    await response.arrayBuffer();
    return response.status;
  };

  /**
   * Asks the other replica until it refuses the key; returns when (after the change answered)
   * the first refused request was sent: a request sent then or later is refused.
   */
  async function refusedAfter(credential: string, changed: number): Promise<number> {
    for (;;) {
      const sent = performance.now() - changed;
      const status = await balanceStatus(second, credential);
      if (status === 401) return sent;
      expect(status).toBe(200);
      if (sent > 5_000) return Number.POSITIVE_INFINITY;
    }
  }

  it("a revoked key is refused on the other replica within 100 ms", async () => {
    const token = await first.createFundedToken(1_000_000n);
    const issued = await createKey(token);
    // The other replica has it cached, for a minute.
    expect(await balanceStatus(second, issued.api_key)).toBe(200);
    expect(await balanceStatus(second, issued.api_key)).toBe(200);
    const revoked = await fetch(`${first.baseUrl}/proxy/${token}/keys/${issued.key.id}/revoke`, {
      method: "POST",
    });
    expect(revoked.status).toBe(200);
    const changed = performance.now();
    const after = await refusedAfter(issued.api_key, changed);
    console.info(
      `the other replica refused the revoked key on a request sent ${after.toFixed(1)} ms after the revoke answered`,
    );
    expect(after).toBeLessThan(100);
    // And inference too, not only the balance.
    const inference = await inferenceClient(second, issued.api_key).chat({ maxTokens: 3, content: "hi" });
    expect(inference.status).toBe(401);
  }, 60_000);

  it("a rotated-out secret is refused on the other replica within 100 ms; the new one works there", async () => {
    const token = await first.createFundedToken(1_000_000n);
    const issued = await createKey(token);
    expect(await balanceStatus(second, issued.api_key)).toBe(200);
    const rotated = await fetch(`${first.baseUrl}/proxy/${token}/keys/${issued.key.id}/rotate`, {
      method: "POST",
    });
    expect(rotated.status).toBe(200);
    const changed = performance.now();
    const fresh = (await rotated.json()) as { api_key: string };
    const after = await refusedAfter(issued.api_key, changed);
    console.info(
      `the other replica refused the rotated-out secret on a request sent ${after.toFixed(1)} ms after the rotation answered`,
    );
    expect(after).toBeLessThan(100);
    expect(await balanceStatus(second, fresh.api_key)).toBe(200);
  }, 60_000);

  it("a price edited on one replica is charged by the other on its next request", async () => {
    const token = await first.createFundedToken(10_000_000n);
    /** What a request was charged, and what it should have been at a price (rounded up, as billed). */
    const chargedOn = async (gateway: TestGateway, price: readonly [number, number]) => {
      const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-pod-providers": "openai" },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          max_tokens: 20,
          messages: [{ role: "user", content: "hi [fake:tokens=5]" }],
        }),
      });
      expect(response.status).toBe(200);
      const { usage } = (await response.json()) as {
        usage: { prompt_tokens: number; completion_tokens: number };
      };
      return {
        charged: Number(response.headers.get("x-pod-cost-microunits")),
        expected: Math.ceil(
          (usage.prompt_tokens * price[0] + usage.completion_tokens * price[1]) / 1_000_000,
        ),
      };
    };
    const seeded = [150_000, 600_000] as const;
    const warm = await chargedOn(second, seeded);
    expect(warm.charged).toBe(warm.expected);
    for (const price of [[15_000_000, 60_000_000], [0, 0], seeded] as const) {
      const edited = await fetch(`${first.baseUrl}/v1/admin/catalog/models/gpt-4o-mini/prices/openai`, {
        method: "PUT",
        headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ input_per_1m: price[0], output_per_1m: price[1] }),
      });
      expect(edited.status).toBe(200);
      const next = await chargedOn(second, price);
      expect(next.charged).toBe(next.expected);
      const here = await chargedOn(first, price);
      expect(here.charged).toBe(here.expected);
    }
  }, 60_000);
});
