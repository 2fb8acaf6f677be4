import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedisCounter, type RedisCounterConnection } from "../../lib/rate-limit/redis-counter";
import { createRedisRateLimiter } from "../../lib/rate-limit/redis-window";
import { testRedis, testSharedPostgres } from "../helpers/services";
import { clearOfWindowEdge } from "../helpers/window-edge";

const redis = testRedis();
let connection: RedisCounterConnection;
const prefix = `pod:test:${randomBytes(4).toString("hex")}`;

describe.skipIf(redis.url === undefined)("redis rate limiter", () => {
  beforeAll(async () => {
    connection = await connectRedisCounter(redis.url ?? "");
  });
  afterAll(async () => {
    await connection.close();
  });

  it("two replicas share one window: the 11th hit across both is refused with a retry time", async () => {
    const replicaA = createRedisRateLimiter(connection.counter, 10, 60_000, prefix);
    const replicaB = createRedisRateLimiter(connection.counter, 10, 60_000, prefix);
    const results = [];
    await clearOfWindowEdge();
    for (let index = 0; index < 12; index += 1)
      results.push(await (index % 2 === 0 ? replicaA : replicaB).hit("register:203.0.113.5"));
    expect(results.filter((result) => result.allowed)).toHaveLength(10);
    const refused = results[11];
    expect(refused?.allowed).toBe(false);
    if (refused && !refused.allowed) expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect((await replicaA.hit("register:198.51.100.1")).allowed).toBe(true);
  });
});

describe.skipIf(redis.url === undefined)("register limit shared through REDIS_URL", () => {
  it("two gateway replicas on one Redis enforce one limit per client", async () => {
    const { startTestGateway } = await import("../helpers/gateway");
    const env = {
      REDIS_URL: redis.url ?? "",
      REGISTER_RATE_LIMIT_PER_MINUTE: "4",
      TRUST_PROXY: "true",
    };
    const [first, second] = await Promise.all([startTestGateway({ env }), startTestGateway({ env })]);
    try {
      const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.9`;
      const statuses: number[] = [];
      await clearOfWindowEdge();
      for (let index = 0; index < 6; index += 1) {
        const gateway = index % 2 === 0 ? first : second;
        const response = await fetch(`${gateway.baseUrl}/v1/register`, {
          method: "POST",
          headers: { "x-forwarded-for": ip },
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

describe.skipIf(redis.url === undefined)("rate limits namespaced by REDIS_NAMESPACE", () => {
  it("two separate gateways on one Redis count apart; replicas of one gateway count together", async () => {
    const { startTestGateway } = await import("../helpers/gateway");
    const suffix = randomBytes(4).toString("hex");
    const env = (namespace: string) => ({
      REDIS_URL: redis.url ?? "",
      REDIS_NAMESPACE: namespace,
      REGISTER_RATE_LIMIT_PER_MINUTE: "3",
      TRUST_PROXY: "true",
    });
    // Gateway one has two replicas; gateway two is another deployment on the same Redis.
    const [oneA, oneB, two] = await Promise.all([
      startTestGateway({ env: env(`one-${suffix}`) }),
      startTestGateway({ env: env(`one-${suffix}`) }),
      startTestGateway({ env: env(`two-${suffix}`) }),
    ]);
    try {
      const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.7`;
      const register = async (baseUrl: string) => {
        const response = await fetch(`${baseUrl}/v1/register`, {
          method: "POST",
          headers: { "x-forwarded-for": ip },
        });
        await response.arrayBuffer();
        return response.status;
      };
      await clearOfWindowEdge();
      // The same client spends gateway one's limit across its two replicas...
      const one = [await register(oneA.baseUrl), await register(oneB.baseUrl), await register(oneA.baseUrl)];
      expect([...one, await register(oneB.baseUrl)]).toEqual([200, 200, 200, 429]);
      // ...and gateway two, on the same Redis, has counted none of it.
      const second = [];
      for (let index = 0; index < 4; index += 1) second.push(await register(two.baseUrl));
      expect(second).toEqual([200, 200, 200, 429]);
      // The keys live under each deployment's prefix, none under the default one.
      const { createClient } = await import("@redis/client");
      const client = createClient({ url: redis.url ?? "" });
      await client.connect();
      try {
        expect(await client.keys(`one-${suffix}:rl:*`)).not.toHaveLength(0);
        expect(await client.keys(`two-${suffix}:rl:*`)).not.toHaveLength(0);
        expect((await client.keys(`pod:rl:*`)).filter((key) => key.includes(ip))).toHaveLength(0);
      } finally {
        await client.close();
      }
    } finally {
      await Promise.all([oneA.close(), oneB.close(), two.close()]);
    }
  });
});

const sharedDatabase = testSharedPostgres("The count_tokens limit across replicas").url;

// Two replicas must know the same token, so this needs a shared Postgres as well as Redis.
describe.skipIf(redis.url === undefined || sharedDatabase === undefined)(
  "count_tokens limit shared through REDIS_URL",
  () => {
    it("two gateway replicas on one Redis and one database enforce one limit per token", async () => {
      const { startTestGateway } = await import("../helpers/gateway");
      const env = { REDIS_URL: redis.url ?? "", COUNT_TOKENS_RATE_LIMIT_PER_MINUTE: "4" };
      const first = await startTestGateway({ env });
      const second = await startTestGateway({
        env: { ...env, DATABASE_URL: first.app.env.DATABASE_URL ?? "" },
      });
      try {
        const token = await first.createFundedToken(1_000n);
        const statuses: number[] = [];
        await clearOfWindowEdge();
        for (let index = 0; index < 6; index += 1) {
          const gateway = index % 2 === 0 ? first : second;
          const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages/count_tokens`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "x" }] }),
          });
          statuses.push(response.status);
          await response.arrayBuffer();
        }
        expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      } finally {
        // The second replica borrows the first one's database, so it goes first.
        await second.close();
        await first.close();
      }
    });
  },
);
