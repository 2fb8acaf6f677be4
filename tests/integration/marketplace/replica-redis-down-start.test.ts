import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrivateRedis, privateRedisSkipReason, startPrivateRedis } from "../../helpers/private-redis";
import * as scripted from "../../helpers/scripted-agent";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database";
import { type GatewayProcess, startGatewayProcess } from "../../helpers/x402-gateway-process";

/**
 * A replica started while its Redis is down (issue 20): the process starts all the same, says
 * so in /health, serves the agents connected to it, and joins the shared marketplace when Redis
 * comes back (a second replica then reaches its agent). Redis is a private `redis-server` on a
 * free port, stopped before the replica starts: the machine's shared one must never be stopped.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
const redisSkip = privateRedisSkipReason();
const skipReason = !postgresUrl
  ? "replica tests skipped: set TEST_DATABASE_URL (replicas are separate processes; PGlite cannot be shared)"
  : redisSkip;
if (skipReason) console.warn(skipReason);

const adminToken = "redis-down-admin";
const marketOnly = { "X-Pod-Routing-Mode": "marketplace-only" };

interface Health {
  status: string;
  components: {
    redis: { status: string };
    marketplace: { agents_held: number; agents_seen: number; peers: number };
  };
}

describe.skipIf(skipReason !== undefined)("a replica started while Redis is down", () => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  const replicas: GatewayProcess[] = [];
  let agent: scripted.ScriptedAgent | undefined;

  beforeAll(async () => {
    [database, redis] = await Promise.all([createTestDatabase(), startPrivateRedis()]);
    await redis.stop();
  }, 60_000);

  afterAll(async () => {
    agent?.close();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redis?.stop();
    await database?.drop();
  });

  const env = (name: string): Record<string, string> => ({
    DATABASE_URL: database.url ?? "",
    REDIS_URL: redis.url,
    REDIS_NAMESPACE: `test-${database.url?.split("/").pop() ?? "redis-down"}`,
    REPLICA_ID: name,
    ADMIN_TOKEN: adminToken,
    REGISTER_RATE_LIMIT_PER_MINUTE: "1000",
  });
  /** `pod_redis_up` from /metrics: 1 shared through Redis, 0 Redis unreachable. */
  const redisUp = async (replica: GatewayProcess): Promise<string | undefined> => {
    const text = await (
      await fetch(`${replica.url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })
    ).text();
    return /^pod_redis_up (\S+)$/m.exec(text)?.[1];
  };
  const health = async (replica: GatewayProcess): Promise<Health> =>
    (await (await fetch(`${replica.url}/health`)).json()) as Health;

  async function fundedToken(replica: GatewayProcess): Promise<string> {
    const registered = (await (await fetch(`${replica.url}/v1/register`, { method: "POST" })).json()) as {
      api_token: string;
    };
    const credited = await fetch(`${replica.url}/v1/admin/credits`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        api_token: registered.api_token,
        amount_microunits: "10000000",
        reason: "test",
      }),
    });
    expect(credited.status).toBe(200);
    return registered.api_token;
  }

  /** A marketplace-only request through `replica`, answered by the scripted agent. */
  async function served(replica: GatewayProcess, token: string) {
    const pending = fetch(`${replica.url}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    const job = await agent?.next("job", 10_000);
    agent?.send({
      type: "job_chunk",
      job_id: job?.job_id,
      status: 200,
      content_type: "application/json",
      data: scripted.b64(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model: "gpt-4o-mini",
          choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 8, completion_tokens: 1, total_tokens: 9 },
        }),
      ),
    });
    agent?.send({ type: "job_done", job_id: job?.job_id });
    const response = await pending;
    const body = (await response.json()) as { choices?: { message: { content: string } }[] };
    return { status: response.status, route: response.headers.get("x-pod-route"), body };
  }

  it("starts, says Redis is down (/health and /metrics), serves its own agent, and joins the shared marketplace when Redis returns", async () => {
    const startedAt = Date.now();
    const a = await startGatewayProcess(env("a"), { startTimeoutMs: 90_000 });
    replicas.push(a);
    // Nothing waits on the unreachable Redis for long (its connect timeouts are a second or two).
    const startMs = Date.now() - startedAt;
    const answer = await fetch(`${a.url}/health`);
    // Degraded, not down: a load balancer keeps sending it traffic (200), operators see why.
    expect(answer.status).toBe(200);
    const first = (await answer.json()) as Health;
    expect(first.status).toBe("degraded");
    expect(first.components.redis.status).toBe("down");
    expect(first.components.marketplace).toMatchObject({ agents_held: 0, peers: 0 });
    expect(await redisUp(a)).toBe("0");

    // An agent connects to A and is served from A alone.
    const enrolled = (await (
      await fetch(`${a.url}/v1/host/enroll`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          display_name: "redis-down host",
          wallet: "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
        }),
      })
    ).json()) as { provider_id: string; host_token: string };
    const activated = await fetch(`${a.url}/v1/admin/hosts/${enrolled.provider_id}/activate`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(activated.status).toBe(200);
    const profile = (await (
      await fetch(`${a.url}/v1/host/profile`, { headers: { authorization: `Bearer ${enrolled.host_token}` } })
    ).json()) as { metadata: { enrollment_code: string } };
    agent = await scripted.connectScriptedAgent(a.url, {
      key: scripted.newAgentKey(),
      enrollmentCode: profile.metadata.enrollment_code,
    });
    await agent.next("auth_ok");
    agent.send({
      type: "capabilities",
      models: [{ model_id: "gpt-4o-mini", input_per_1m: 100_000, output_per_1m: 400_000, max_concurrent: 2 }],
    });
    await agent.next("capabilities_ack");
    agent.send({ type: "heartbeat", queue_depth: 0, tokens_per_sec_p50: 0 });
    const heartbeats = setInterval(
      () => agent?.send({ type: "heartbeat", queue_depth: 0, tokens_per_sec_p50: 0 }),
      5_000,
    );
    try {
      expect((await health(a)).components).toMatchObject({
        redis: { status: "down" },
        marketplace: { agents_held: 1, agents_seen: 1 },
      });
      const token = await fundedToken(a);
      const onA = await served(a, token);
      expect(onA).toMatchObject({ status: 200, route: "marketplace" });
      expect(onA.body.choices?.[0]?.message.content).toBe("hello");

      // Redis comes back: A finds it on its own (no restart) and publishes its agent.
      await redis.restart();
      await expect
        .poll(async () => (await health(a)).components.redis.status, { timeout: 20_000 })
        .toBe("up");
      expect((await health(a)).status).toBe("ok");
      expect(await redisUp(a)).toBe("1");
      const b = await startGatewayProcess(env("b"), { startTimeoutMs: 90_000 });
      replicas.push(b);
      await expect
        .poll(async () => (await health(b)).components.marketplace.agents_seen, { timeout: 20_000 })
        .toBe(1);
      expect((await health(b)).components.marketplace.agents_held).toBe(0);
      await expect
        .poll(async () => (await health(a)).components.marketplace.peers, { timeout: 10_000 })
        .toBe(1);
      // A request on B reaches the agent held by A through Redis.
      const onB = await served(b, token);
      expect(onB).toMatchObject({ status: 200, route: "marketplace" });
      expect(onB.body.choices?.[0]?.message.content).toBe("hello");
    } finally {
      clearInterval(heartbeats);
    }
    console.info(`replica started with Redis down in ${startMs} ms`);
    // Two processes migrating and starting on a loaded 2-core machine take their time.
  }, 180_000);
});
