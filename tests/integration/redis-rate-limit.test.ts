import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedisCounter, type RedisCounterConnection } from "../../lib/rate-limit/redis-counter";
import { createRedisRateLimiter } from "../../lib/rate-limit/redis-window";
import { testRedis, testSharedPostgres } from "../helpers/services";

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
