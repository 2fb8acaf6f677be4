import OpenAI from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { performanceKey } from "../../../lib/routing/source-performance";
import { type FakeUpstream, startFakeUpstream } from "../../helpers/fake-upstream";
import { startTestGateway, type TestGateway, testAdminToken } from "../../helpers/gateway";
import { createMarketplaceFixture } from "../../helpers/marketplace-fixture";
import { testRedis } from "../../helpers/services";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database";
import { type GatewayProcess, startGatewayProcess } from "../../helpers/x402-gateway-process";

/**
 * Issue 33's "done when" for measured speed: the gateway's figures converge on what the fake
 * sources are set to (each token on its schedule, so a loaded machine's late timers do not
 * slow the source down), the replicas sharing Redis hold the same figures, and a host that
 * announces ten times its real speed is ranked by the real one.
 */

const gateways: TestGateway[] = [];
afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
});

const client = (base: string, token: string) =>
  new OpenAI({ baseURL: `${base}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });

/** One streamed answer of `tokens` tokens from the named source, read to its end. */
async function streamFrom(base: string, token: string, provider: string, tokens: number) {
  const stream = await client(base, token).chat.completions.create({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: `measure [fake:tokens=${tokens}]` }],
    max_tokens: tokens + 10,
    stream: true,
    provider: { only: [provider] },
  } as OpenAI.ChatCompletionCreateParamsStreaming);
  for await (const _chunk of stream) {
    // Read to the end: the answer settles (and is measured) when its stream ends.
  }
}

/** Runs `count` jobs, `concurrency` at a time. */
async function inParallel(count: number, concurrency: number, job: (index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await job(index);
      }
    }),
  );
}

const within = (measured: number | undefined, configured: number) =>
  Math.abs((measured ?? 0) - configured) / configured;

const redis = testRedis();
const postgresUrl = process.env.TEST_DATABASE_URL;

interface Listed {
  tag: string;
  performance: {
    measured: boolean;
    requests: number;
    tokens_per_second: number | null;
    ttft_ms: number | null;
  };
}

describe.skipIf(redis.skipReason !== undefined || postgresUrl === undefined)(
  "measured speed across two replicas (separate processes on one Postgres and one Redis)",
  () => {
    let database: TestDatabase | undefined;
    const replicas: GatewayProcess[] = [];
    const fakes: FakeUpstream[] = [];
    afterAll(async () => {
      for (const replica of replicas) await replica.stop();
      for (const fake of fakes) await fake.close();
      await database?.drop();
    });

    it("converges within 10% of each source's speed after 200 requests, the same on both replicas", async () => {
      database = await createTestDatabase();
      // One fake per source, both replicas sending to it: OpenAI at 30 tokens/s, OpenRouter at 120.
      const speeds = { openai: 30, openrouter: 120 };
      const [openai, openrouter] = await Promise.all([
        startFakeUpstream("openai", "fake-openai"),
        startFakeUpstream("openai", "fake-openrouter"),
      ]);
      fakes.push(openai, openrouter);
      openai.setTokenRate(speeds.openai);
      openrouter.setTokenRate(speeds.openrouter);
      const env = (name: string): Record<string, string> => ({
        DATABASE_URL: database?.url ?? "",
        REDIS_URL: redis.url ?? "",
        REDIS_NAMESPACE: `speed-${database?.url?.split("/").pop() ?? "x"}`,
        REPLICA_ID: name,
        ADMIN_TOKEN: testAdminToken,
        OPENAI_API_KEY: "sk-test-openai",
        OPENAI_BASE_URL: openai.baseUrl,
        OPENROUTER_API_KEY: "sk-test-openrouter",
        OPENROUTER_BASE_URL: openrouter.baseUrl,
      });
      replicas.push(await startGatewayProcess(env("a"), { startTimeoutMs: 150_000 }));
      replicas.push(await startGatewayProcess(env("b"), { startTimeoutMs: 150_000 }));
      const [a, b] = replicas.map((replica) => replica.url.replace(/\/+$/, "")) as [string, string];
      const registered = (await (await fetch(`${a}/v1/register`, { method: "POST" })).json()) as {
        api_token: string;
      };
      const token = registered.api_token;
      const credited = await fetch(`${a}/v1/admin/credits`, {
        method: "POST",
        headers: { authorization: `Bearer ${testAdminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ api_token: token, amount_microunits: "100000000", reason: "test" }),
      });
      expect(credited.status).toBe(200);

      const requests = 200;
      // Two seconds of generation per answer at either speed: a late last timer (this process
      // runs the fakes and the clients) is a small part of it.
      for (const [provider, speed] of Object.entries(speeds))
        await inParallel(requests, 20, (index) =>
          streamFrom(index % 2 === 0 ? a : b, token, provider, speed * 2),
        );
      const listing = async (base: string): Promise<Map<string, Listed["performance"]>> => {
        const body = (await (await fetch(`${base}/v1/models/gpt-4o-mini/endpoints`)).json()) as {
          data: { endpoints: Listed[] };
        };
        return new Map(body.data.endpoints.map((endpoint) => [endpoint.tag, endpoint.performance]));
      };
      // Each replica hears the other's samples in batches: wait until both count all 200 of each.
      for (const base of [a, b])
        await expect
          .poll(
            async () => {
              const listed = await listing(base);
              return Object.keys(speeds).map((provider) => listed.get(provider)?.requests);
            },
            { timeout: 30_000 },
          )
          .toEqual([requests, requests]);
      const [onA, onB] = [await listing(a), await listing(b)];
      for (const [provider, speed] of Object.entries(speeds)) {
        const figures = onA.get(provider);
        expect(figures?.measured).toBe(true);
        expect(within(figures?.tokens_per_second ?? 0, speed)).toBeLessThan(0.1);
        // The same samples, added up in another order: the same figures on the other replica.
        expect(onB.get(provider)).toEqual(figures);
        console.log(
          `measured ${provider}: ${figures?.tokens_per_second} tokens/s (set ${speed}), TTFT ${figures?.ttft_ms} ms, on both replicas`,
        );
      }
    }, 300_000);
  },
);

describe("a host's announced speed", () => {
  it("a host claiming 10x its real throughput is ranked by the real one once measured", async () => {
    const gateway = await startTestGateway();
    gateways.push(gateway);
    const market = createMarketplaceFixture(gateway);
    const token = await gateway.createFundedToken(100_000_000n);
    const offers = [{ model: "gpt-4o-mini", input: 100_000, output: 400_000 }];
    // Same price; the boaster announces 500 tokens/s and serves 50, the honest host says 100 and serves 100.
    const boaster = await market.agent({ offers, tokensPerSecond: 500 });
    const honest = await market.agent({ offers, tokensPerSecond: 100 });
    boaster.backend.setTokenRate(50);
    honest.backend.setTokenRate(100);
    const hosts = [boaster.host.providerId, honest.host.providerId];
    const served = async (provider: Record<string, unknown>) => {
      const { response } = await client(gateway.baseUrl, token)
        .chat.completions.create({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: "who serves [fake:tokens=3]" }],
          max_tokens: 10,
          provider: { only: hosts, ...provider },
        } as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .withResponse();
      return response.headers.get("x-pod-provider-id");
    };
    // Unmeasured, the claims are all there is: the boaster is taken for the fastest.
    expect(await served({ sort: "throughput" })).toBe(boaster.host.providerId);

    for (const host of hosts) await inParallel(24, 4, () => streamFrom(gateway.baseUrl, token, host, 40));
    const speedOf = (providerId: string) =>
      gateway.app.routing.performance.figures(performanceKey(providerId, "gpt-4o-mini"));
    await expect.poll(() => hosts.every((host) => speedOf(host).measured)).toBe(true);
    // A host's output is counted by the gateway's tokenizer (its own claim is not believed), so
    // the figures are in those tokens: the boaster measures about half the honest host, nowhere near 500.
    const boasterSpeed = speedOf(boaster.host.providerId).tokensPerSecond ?? 0;
    const honestSpeed = speedOf(honest.host.providerId).tokensPerSecond ?? 0;
    expect(boasterSpeed / honestSpeed).toBeGreaterThan(0.4);
    expect(boasterSpeed / honestSpeed).toBeLessThan(0.6);
    expect(boasterSpeed).toBeLessThan(500 / 5);

    // Measured, the real speeds decide: by throughput and by the default score alike.
    expect(await served({ sort: "throughput" })).toBe(honest.host.providerId);
    expect(await served({})).toBe(honest.host.providerId);
    const listed = (await (await fetch(`${gateway.baseUrl}/v1/models/gpt-4o-mini/endpoints`)).json()) as {
      data: {
        endpoints: Array<{
          tag: string;
          announced_tokens_per_second: number | null;
          performance: { tokens_per_second: number | null };
        }>;
      };
    };
    const boasterRow = listed.data.endpoints.find((endpoint) => endpoint.tag === boaster.host.providerId);
    expect(boasterRow?.announced_tokens_per_second).toBe(500);
    expect(boasterRow?.performance.tokens_per_second).toBe(Number(boasterSpeed.toFixed(1)));
    await market.cleanup();
  }, 240_000);
});
