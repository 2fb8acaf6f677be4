import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { sql } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, queryRows } from "../../../lib/db/client";
import { ensureAccount, getAccountBalance, systemAccounts } from "../../../lib/ledger/accounts";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { findToken } from "../../../lib/tokens/find-token";
import { editConfig, podAgent, type RunningAgent, startAgent } from "../../helpers/agent-process";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { registerFundedToken } from "../../helpers/funded-token";
import { type PrivateRedis, privateRedisSkipReason, startPrivateRedis } from "../../helpers/private-redis";
import { startTcpBalancer, type TcpBalancer } from "../../helpers/tcp-balancer";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database";
import { type GatewayProcess, startGatewayProcess } from "../../helpers/x402-gateway-process";

/**
 * Three gateway replicas started at the same moment on one fresh Postgres database and one
 * Redis, and the real `pod-agent` process, reaching them through a TCP balancer, connected to
 * replica C. Requests to A and B are served by C's agent; capacity, cancellation, billing, the
 * death of C and a Redis outage are checked across the processes. Redis is a private
 * `redis-server` on a free port: the test stops it mid-run, which the machine's shared one must
 * never be.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
const redisSkip = privateRedisSkipReason();
const skipReason = !postgresUrl
  ? "replica tests skipped: set TEST_DATABASE_URL (replicas are separate processes; PGlite cannot be shared)"
  : redisSkip;
if (skipReason) console.warn(skipReason);

const adminToken = "replicas-admin-token";
const price = { input_per_1m: 100_000, output_per_1m: 400_000, max_concurrent: 2 };
const marketOnly = { "X-Pod-Routing-Mode": "marketplace-only" };

interface Health {
  status: string;
  replica: { id: string; instance: string };
  components: {
    database: { status: string; kind: string };
    redis: { status: string };
    marketplace: { agents_held: number; agents_seen: number; peers: number };
  };
}

describe.skipIf(skipReason !== undefined)("one marketplace across three replicas", () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let redis: PrivateRedis;
  let centralized: FakeUpstream;
  let backend: FakeUpstream;
  let balancer: TcpBalancer;
  let agent: RunningAgent | undefined;
  let providerId: string;
  const replicas: Record<"a" | "b" | "c", GatewayProcess> = {} as Record<"a" | "b" | "c", GatewayProcess>;
  const alive = { a: true, b: true, c: true };

  const health = async (name: "a" | "b" | "c"): Promise<Health> =>
    (await (await fetch(`${replicas[name].url}/health`)).json()) as Health;

  // Registered on one replica and credited through another.
  const fundedToken = (amount: bigint) =>
    registerFundedToken(replicas.a.url, adminToken, amount, replicas.b.url);

  async function balanceOfToken(token: string) {
    const record = await findToken(handle.db, token);
    if (!record) throw new Error("unknown token");
    return getAccountBalance(handle.db, record.accountId);
  }

  async function accountBalance(kind: "provider" | "treasury", ref: string): Promise<bigint> {
    return (await getAccountBalance(handle.db, await ensureAccount(handle.db, kind, ref))).balance;
  }

  const openai = (name: "a" | "b" | "c", token: string) =>
    new OpenAI({ baseURL: `${replicas[name].url}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });
  const anthropic = (name: "a" | "b" | "c", token: string) =>
    new Anthropic({ baseURL: `${replicas[name].url}/proxy/${token}`, apiKey: "pod", maxRetries: 0 });

  beforeAll(async () => {
    [database, redis, centralized, backend] = await Promise.all([
      createTestDatabase(),
      startPrivateRedis(),
      startFakeUpstream("openai", "fake-openai"),
      startFakeUpstream("openai", "agent-backend"),
    ]);
    const env = (name: string): Record<string, string> => ({
      DATABASE_URL: database.url ?? "",
      REDIS_URL: redis.url,
      // The private Redis is this test's alone; a namespace all the same, as operators sharing one would.
      REDIS_NAMESPACE: `test-${database.url?.split("/").pop() ?? "replicas"}`,
      REPLICA_ID: name,
      OPENAI_API_KEY: "sk-test-openai",
      OPENAI_BASE_URL: centralized.baseUrl,
      ADMIN_TOKEN: adminToken,
      REGISTER_RATE_LIMIT_PER_MINUTE: "1000",
      PROVIDER_JOB_DEADLINE_MS: "20000",
    });
    // The same moment, a fresh (unmigrated) database: migrations and seeding must take turns.
    // Three processes seeding one catalog on a loaded 2-core machine take their time.
    const start = { startTimeoutMs: 150_000 };
    const [a, b, c] = await Promise.all([
      startGatewayProcess(env("a"), start),
      startGatewayProcess(env("b"), start),
      startGatewayProcess(env("c"), start),
    ]);
    Object.assign(replicas, { a, b, c });
    handle = await openDatabase({ url: database.url });
    balancer = await startTcpBalancer(() =>
      (["c", "a", "b"] as const).filter((name) => alive[name]).map((name) => replicas[name].url),
    );

    const dir = mkdtempSync(join(tmpdir(), "pod-agent-replicas-"));
    const configPath = join(dir, "config.json");
    const output = await podAgent(
      [
        "enroll",
        "--config",
        configPath,
        "--gateway",
        replicas.a.url,
        "--name",
        "replica host",
        "--wallet",
        "GXfqVnZENHzvim8rNN8TPwqxWXQe8EBbxhcEMYE8Z7BS",
      ],
      { POD_AGENT_IDENTITY: join(dir, "identity.key") },
    );
    providerId = /provider_id: (\S+)/.exec(output)?.[1] ?? "";
    const activated = await fetch(`${replicas.b.url}/v1/admin/hosts/${providerId}/activate`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(activated.status).toBe(200);
    editConfig(configPath, (config) => {
      config.gateway = balancer.url;
      config.identity_path = join(dir, "identity.key");
      config.backends = [{ kind: "llamacpp", url: backend.baseUrl, models: ["gpt-4o-mini"] }];
      config.pricing = { models: { "gpt-4o-mini": price } };
      config.limits = { max_concurrent: 4, max_concurrent_per_model: 2 };
      config.metrics_addr = "";
    });
    agent = startAgent(configPath);
    await agent.waitFor("serving gpt-4o-mini");
  }, 240_000);

  afterAll(async () => {
    await agent?.stop();
    await Promise.all(Object.values(replicas).map((replica) => replica.stop()));
    await balancer?.close();
    await handle?.close();
    await Promise.all([centralized?.close(), backend?.close(), redis?.stop()]);
    await database?.drop();
  });

  it("all three started together on a fresh database; /health names each replica, its Redis, Postgres and agents", async () => {
    for (const name of ["a", "b"] as const)
      await expect
        .poll(async () => (await health(name)).components.marketplace.agents_seen, { timeout: 10_000 })
        .toBe(1);
    // A replica hears one started before it subscribed at that one's next beat (a third of
    // REPLICA_TIMEOUT_MS), so each is given until then to count both others.
    for (const name of ["a", "b", "c"] as const)
      await expect
        .poll(async () => (await health(name)).components.marketplace.peers, { timeout: 10_000 })
        .toBe(2);
    expect(balancer.routed[0]).toBe(replicas.c.url);
    const [a, b, c] = await Promise.all([health("a"), health("b"), health("c")]);
    for (const [name, body] of [
      ["a", a],
      ["b", b],
      ["c", c],
    ] as const) {
      expect(body).toMatchObject({
        status: "ok",
        replica: { id: name },
        components: { database: { status: "ok", kind: "postgres" }, redis: { status: "up" } },
      });
      expect(body.components.marketplace.peers).toBe(2);
    }
    expect(c.components.marketplace).toMatchObject({ agents_held: 1, agents_seen: 1 });
    expect(a.components.marketplace).toMatchObject({ agents_held: 0, agents_seen: 1 });
    expect(new Set([a.replica.instance, b.replica.instance, c.replica.instance]).size).toBe(3);
  });

  it("serves streamed and non-streamed requests in both dialects on A and B with C's agent, billed once, credited 80/20", async () => {
    const token = await fundedToken(10_000_000n);
    const providerBefore = await accountBalance("provider", providerId);
    const treasuryBefore = await accountBalance("treasury", systemAccounts.treasury.ref);
    const backendBefore = backend.requests.length;
    for (const name of ["a", "b"] as const) {
      const { data, response } = await openai(name, token)
        .chat.completions.create(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi [fake:tokens=4]" }] },
          { headers: marketOnly },
        )
        .withResponse();
      expect(response.headers.get("x-pod-route")).toBe("marketplace");
      expect(response.headers.get("x-pod-provider-id")).toBe(providerId);
      expect(data.choices[0]?.message.content).toBe("Hello w1 w2 w3");

      const stream = await openai(name, token).chat.completions.create(
        { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi [fake:tokens=3]" }] },
        { headers: marketOnly },
      );
      let streamed = "";
      for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
      expect(streamed).toBe("Hello w1 w2");

      const { data: message, response: messageResponse } = await anthropic(name, token)
        .messages.create(
          {
            model: "gpt-4o-mini",
            max_tokens: 50,
            messages: [{ role: "user", content: "hi [fake:tokens=2]" }],
          },
          { headers: marketOnly },
        )
        .withResponse();
      expect(messageResponse.headers.get("x-pod-route")).toBe("marketplace");
      expect(message.content[0]).toMatchObject({ type: "text", text: "Hello w1" });

      const events = await anthropic(name, token).messages.create(
        {
          model: "gpt-4o-mini",
          max_tokens: 50,
          stream: true,
          messages: [{ role: "user", content: "hi [fake:tokens=2]" }],
        },
        { headers: marketOnly },
      );
      let text = "";
      for await (const event of events)
        if (event.type === "content_block_delta" && event.delta.type === "text_delta")
          text += event.delta.text;
      expect(text).toBe("Hello w1");
    }
    expect(backend.requests.length - backendBefore).toBe(8);
    expect(centralized.requests).toHaveLength(0);

    await expect.poll(() => balanceOfToken(token).then((balance) => balance.held)).toBe(0n);
    const charged = 10_000_000n - (await balanceOfToken(token)).balance;
    expect(charged).toBeGreaterThan(0n);
    const record = await findToken(handle.db, token);
    const usage = await queryRows<{ count: string; cost: string; route: string }>(
      handle.db,
      sql`SELECT count(*)::text AS count, sum(cost_microunits)::text AS cost, min(route) AS route
          FROM usage_records WHERE account_id = ${record?.accountId}`,
    );
    expect(usage[0]).toEqual({ count: "8", cost: charged.toString(), route: "marketplace" });
    const providerGain = (await accountBalance("provider", providerId)) - providerBefore;
    const treasuryGain = (await accountBalance("treasury", systemAccounts.treasury.ref)) - treasuryBefore;
    expect(providerGain + treasuryGain).toBe(charged);
    expect(providerGain).toBeLessThanOrEqual((charged * 80n) / 100n);
    expect(providerGain).toBeGreaterThanOrEqual((charged * 80n) / 100n - 8n);
  });

  it("a caller who disconnects on A cancels the job at C's agent backend", async () => {
    const token = await fundedToken(10_000_000n);
    const abortedBefore = backend.abortedRequests;
    const controller = new AbortController();
    const response = await fetch(`${replicas.a.url}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "long [fake:tokens=400] [fake:slow=50]" }],
      }),
      signal: controller.signal,
    });
    expect(response.headers.get("x-pod-route")).toBe("marketplace");
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await expect.poll(() => backend.abortedRequests, { timeout: 5_000 }).toBe(abortedBefore + 1);
    expect(backend.activeRequests).toBe(0);
    await expect.poll(() => balanceOfToken(token).then((balance) => balance.held)).toBe(0n);
    expect((await balanceOfToken(token)).balance).toBeLessThan(10_000_000n);
  });

  it("requests from A and B at once never run more jobs on the agent than it announced", async () => {
    const token = await fundedToken(50_000_000n);
    const peakBefore = backend.peakActiveRequests;
    expect(peakBefore).toBeLessThanOrEqual(price.max_concurrent);
    const ask = async (name: "a" | "b", index: number) => {
      const response = await fetch(`${replicas[name].url}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...marketOnly },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: `busy ${index} [fake:tokens=20] [fake:slow=100]` }],
        }),
      });
      const text = await response.text();
      return response.status === 502 && text.includes("no free capacity") ? "refused by C" : response.status;
    };
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, index) => ask(index % 2 === 0 ? "a" : "b", index)),
    );
    // A and B each saw two free slots and sent their jobs to C: C's count is the one that holds.
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(2);
    expect(statuses).toContain("refused by C");
    expect(
      statuses.filter((status) => status !== 200 && status !== "refused by C" && status !== 503),
    ).toEqual([]);
    expect(backend.peakActiveRequests).toBeLessThanOrEqual(price.max_concurrent);
    await expect.poll(() => balanceOfToken(token).then((balance) => balance.held)).toBe(0n);
  });

  it("kill -9 of C mid-stream: A's caller gets a clean in-band error and is billed for what was relayed; the agent reconnects to A and serves again", async () => {
    const token = await fundedToken(10_000_000n);
    const stream = await openai("a", token).chat.completions.create(
      {
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "doomed [fake:tokens=400] [fake:slow=30]" }],
      },
      { headers: marketOnly },
    );
    let received = "";
    const started = Date.now();
    const failure = (async () => {
      for await (const chunk of stream) {
        received += chunk.choices[0]?.delta.content ?? "";
        if (received.length > 20 && alive.c) {
          alive.c = false;
          await replicas.c.kill();
        }
      }
      return undefined;
    })().catch((error: unknown) => error);
    const error = await failure;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toMatch(/upstream stream failed/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(received.length).toBeGreaterThan(20);
    await expect
      .poll(() => balanceOfToken(token).then((balance) => balance.held), { timeout: 10_000 })
      .toBe(0n);
    expect((await balanceOfToken(token)).balance).toBeLessThan(10_000_000n);

    // The agent's connection went with C: it reconnects through the balancer, to A.
    await expect.poll(() => balancer.routed.at(-1), { timeout: 15_000 }).toBe(replicas.a.url);
    await expect
      .poll(async () => (await health("b")).components.marketplace.agents_seen, { timeout: 15_000 })
      .toBe(1);
    for (const name of ["a", "b"] as const) {
      const { response } = await openai(name, token)
        .chat.completions.create(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: "again [fake:tokens=2]" }] },
          { headers: marketOnly },
        )
        .withResponse();
      expect(response.headers.get("x-pod-route")).toBe("marketplace");
    }
    expect((await health("a")).components.marketplace).toMatchObject({ agents_held: 1, peers: 1 });
  });

  it("Redis stopped mid-run: each replica serves what it holds and says so, nothing hangs; all recover when Redis returns", async () => {
    const token = await fundedToken(10_000_000n);
    await redis.stop();
    await expect
      .poll(async () => (await health("b")).components.redis.status, { timeout: 5_000 })
      .toBe("down");
    const [a, b] = await Promise.all([health("a"), health("b")]);
    expect(a).toMatchObject({ status: "degraded", components: { redis: { status: "down" } } });
    expect(a.components.marketplace).toMatchObject({ agents_held: 1, agents_seen: 1 });
    expect(b.components.marketplace).toMatchObject({ agents_held: 0, agents_seen: 0 });

    // A holds the agent: it still serves it. B cannot reach it: it answers at once, it does not wait.
    const { response } = await openai("a", token)
      .chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "alone [fake:tokens=2]" }] },
        { headers: marketOnly },
      )
      .withResponse();
    expect(response.headers.get("x-pod-route")).toBe("marketplace");
    const started = Date.now();
    const refused = await fetch(`${replicas.b.url}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...marketOnly },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(refused.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2_000);
    // Centralized routing does not need Redis at all.
    const central = await openai("b", token).chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "central [fake:tokens=2]" }],
    });
    expect(central.choices[0]?.message.content).toBeTruthy();

    await redis.restart();
    await expect
      .poll(async () => (await health("b")).components.marketplace.agents_seen, { timeout: 10_000 })
      .toBe(1);
    expect((await health("b")).components.redis.status).toBe("up");
    const { response: back } = await openai("b", token)
      .chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "back [fake:tokens=2]" }] },
        { headers: marketOnly },
      )
      .withResponse();
    expect(back.headers.get("x-pod-route")).toBe("marketplace");
    await expect.poll(() => balanceOfToken(token).then((balance) => balance.held)).toBe(0n);
    expect(await verifyLedger(handle.db)).toEqual([]);
  });
});
