import { randomBytes } from "node:crypto";
import { createClient } from "@redis/client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setLogLevel } from "../../../lib/log";
import type { AgentTransport, LiveOffer } from "../../../lib/marketplace/registry";
import { SharedMarketplaceRegistry } from "../../../lib/marketplace/shared-registry";
import { HealthTracker } from "../../../lib/routing/health-tracker";
import { performanceKey, SourcePerformance } from "../../../lib/routing/source-performance";
import { testRedis } from "../../helpers/services";

/**
 * Two replicas' shared registries in one process, on the machine's Redis (a namespace of their
 * own): replica C holds an agent double whose reply is a stream produced only when read, so the
 * test can see how far ahead of the caller on replica A the bytes are pulled.
 */
const redis = testRedis();

const chunkBytes = 64 * 1024;
const totalChunks = 64; // 4 MiB

interface Source {
  produced: number;
  aborted: boolean;
}

/** An agent whose reply is `totalChunks` numbered chunks, each made when the reader pulls it. */
function countingTransport(sources: Source[]): AgentTransport {
  return async (_offer, _body, options) => {
    const source: Source = { produced: 0, aborted: false };
    sources.push(source);
    options.signal.addEventListener("abort", () => {
      source.aborted = true;
    });
    let index = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (index === totalChunks) return controller.close();
          controller.enqueue(new Uint8Array(chunkBytes).fill(index % 251));
          index += 1;
          source.produced += chunkBytes;
        },
        cancel() {
          source.aborted = true;
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

describe.skipIf(redis.url === undefined)("the marketplace shared through Redis", () => {
  const namespace = `test-${randomBytes(4).toString("hex")}`;
  let replicaA: SharedMarketplaceRegistry;
  let replicaC: SharedMarketplaceRegistry;
  const healthA = new HealthTracker();
  const healthC = new HealthTracker();
  const performanceA = new SourcePerformance({ minWeight: 10 });
  const performanceC = new SourcePerformance({ minWeight: 10 });
  const sources: Source[] = [];

  const replicaIds = new Map<string, string>();
  const make = (name: string, health: HealthTracker, performance: SourcePerformance) => {
    const replicaId = `gw_${name}_${randomBytes(3).toString("hex")}`;
    replicaIds.set(name, replicaId);
    const registry = new SharedMarketplaceRegistry({
      redisUrl: redis.url ?? "",
      namespace,
      replicaId,
      replicaName: name,
      heartbeatTimeoutMs: 30_000,
      replicaTimeoutMs: 1_500,
    });
    health.share(registry.shareHealth(health));
    performance.share(registry.sharePerformance(performance));
    registry.start();
    return registry;
  };

  beforeAll(async () => {
    setLogLevel("silent");
    replicaA = make("a", healthA, performanceA);
    replicaC = make("c", healthC, performanceC);
    await vi.waitFor(
      () => {
        if (replicaA.status().peers < 1 || replicaC.status().peers < 1)
          throw new Error("the two replicas never heard each other");
      },
      { timeout: 5_000, interval: 50 },
    );
  });

  afterEach(() => {
    sources.length = 0;
  });

  afterAll(async () => {
    await Promise.all([replicaA?.close(), replicaC?.close()]);
  });

  const connectAgent = (providerId: string, maxConcurrent: number) =>
    replicaC.connect({
      providerId,
      offers: [
        {
          modelId: "gpt-4o-mini",
          dialect: "openai",
          inputPer1m: 100_000n,
          outputPer1m: 400_000n,
          maxConcurrent,
        },
      ],
      transport: countingTransport(sources),
    });

  async function offerOnA(providerId: string): Promise<LiveOffer> {
    await expect
      .poll(() => replicaA.liveOffers().find((offer) => offer.providerId === providerId), { timeout: 5_000 })
      .toBeDefined();
    return replicaA.liveOffers().find((offer) => offer.providerId === providerId) as LiveOffer;
  }

  const dispatchOptions = (signal = new AbortController().signal) => ({ signal, forwardHeaders: {} });

  it("a caller on A reading slowly holds the agent back: bytes are pulled a bounded window ahead, then all arrive in order", async () => {
    const handle = connectAgent("p-backpressure", 2);
    const offer = await offerOnA("p-backpressure");
    expect(offer).toMatchObject({ freeSlots: 2, inputPer1m: 100_000n });
    expect(replicaA.agents()).toContainEqual(
      expect.objectContaining({ providerId: "p-backpressure", replica: "c" }),
    );

    const response = await replicaA.dispatch(offer, "{}", dispatchOptions());
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    const first = await reader.read();
    expect(first.value?.[0]).toBe(0);
    // Settled: every job message and ack either replica published has been heard, read once both
    // replicas' pending work ran (waitFor checks at once, then from a timer), so nothing more can
    // pull from the agent.
    await new Promise((resolve) => setImmediate(resolve));
    await vi.waitFor(
      () => {
        const [a, c] = [replicaA.directCounts(), replicaC.directCounts()];
        if (a.sent + c.sent !== a.heard + c.heard) throw new Error("job messages still on their way");
      },
      { timeout: 5_000, interval: 20 },
    );
    const source = sources[0] as Source;
    // 256 KiB window, plus what sits in the streams' own buffers: far below the 4 MiB reply.
    expect(source.produced).toBeLessThanOrEqual(640 * 1024);
    await expect
      .poll(() => replicaA.liveOffers().find((o) => o.providerId === "p-backpressure")?.freeSlots, {
        timeout: 5_000,
      })
      .toBe(1);
    expect(replicaA.inFlight("p-backpressure")).toBe(1);

    let received = first.value?.byteLength ?? 0;
    let ordered = true;
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const index = Math.floor(received / chunkBytes);
      if (next.value[0] !== index % 251) ordered = false;
      received += next.value.byteLength;
    }
    expect(received).toBe(chunkBytes * totalChunks);
    expect(ordered).toBe(true);
    await expect.poll(() => replicaC.inFlight("p-backpressure"), { timeout: 5_000 }).toBe(0);
    handle.disconnect();
    await expect
      .poll(() => replicaA.liveOffers().some((o) => o.providerId === "p-backpressure"), { timeout: 5_000 })
      .toBe(false);
  });

  it("a caller on A who stops reading cancels the job at C and frees its slot", async () => {
    const handle = connectAgent("p-cancel", 1);
    const offer = await offerOnA("p-cancel");
    const response = await replicaA.dispatch(offer, "{}", dispatchOptions());
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    await expect.poll(() => sources[0]?.aborted, { timeout: 3_000 }).toBe(true);
    await expect.poll(() => replicaC.inFlight("p-cancel"), { timeout: 5_000 }).toBe(0);
    handle.disconnect();
  });

  it("capacity is C's to give: two jobs from A for an agent that takes one, and the second is refused", async () => {
    const handle = connectAgent("p-capacity", 1);
    const offer = await offerOnA("p-capacity");
    const results = await Promise.allSettled([
      replicaA.dispatch(offer, "{}", dispatchOptions()),
      replicaA.dispatch(offer, "{}", dispatchOptions()),
    ]);
    const refused = results.filter((result) => result.status === "rejected");
    expect(refused).toHaveLength(1);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/no free capacity/);
    const served = results.find((result) => result.status === "fulfilled");
    await (served as PromiseFulfilledResult<Response>).value.body?.cancel();
    await expect.poll(() => replicaC.inFlight("p-capacity"), { timeout: 5_000 }).toBe(0);
    handle.disconnect();
  });

  it("taking a provider out on A closes its agent on C", async () => {
    let removed = false;
    replicaC.connect({
      providerId: "p-retired",
      offers: [
        { modelId: "gpt-4o-mini", dialect: "openai", inputPer1m: 1n, outputPer1m: 1n, maxConcurrent: 1 },
      ],
      transport: countingTransport(sources),
      onRemoved: () => {
        removed = true;
      },
    });
    await offerOnA("p-retired");
    replicaA.disconnect("p-retired");
    await expect.poll(() => removed, { timeout: 3_000 }).toBe(true);
    expect(replicaC.liveOffers().some((offer) => offer.providerId === "p-retired")).toBe(false);
  });

  /**
   * An agent whose reply is a first chunk and then a last one with its end: at once (job_chunk and
   * job_done in one read of the agent's socket), or, given `ends`, when the test calls the end it
   * is handed.
   */
  function twoPartTransport(contentType: string, ends?: Array<() => void>): AgentTransport {
    return async () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"first":true'));
          const end = () => {
            controller.enqueue(new TextEncoder().encode("}"));
            controller.close();
          };
          if (ends) ends.push(end);
          else end();
        },
      });
      return new Response(body, { status: 200, headers: { "content-type": contentType } });
    };
  }

  const connectTwoPart = (providerId: string, contentType: string, ends?: Array<() => void>) =>
    replicaC.connect({
      providerId,
      offers: [
        { modelId: "gpt-4o-mini", dialect: "openai", inputPer1m: 1n, outputPer1m: 1n, maxConcurrent: 4 },
      ],
      transport: twoPartTransport(contentType, ends),
    });

  /** Every message sent on A's own channel (what C tells A about its jobs), read by a client of the test's own. */
  async function listenToA(): Promise<{ messages: Array<Record<string, unknown>>; close(): Promise<void> }> {
    const client = createClient({ url: redis.url ?? "" });
    await client.connect();
    const messages: Array<Record<string, unknown>> = [];
    await client.subscribe(`${namespace}:mkt:r:${replicaIds.get("a")}`, (text) => {
      messages.push(JSON.parse(text) as Record<string, unknown>);
    });
    return { messages, close: () => client.close() };
  }

  it("a reply whose end comes with its first bytes crosses to A as one message: a start that carries its end", async () => {
    const handle = connectTwoPart("p-whole", "application/json");
    const offer = await offerOnA("p-whole");
    const listener = await listenToA();
    try {
      const response = await replicaA.dispatch(offer, "{}", dispatchOptions());
      expect(await response.text()).toBe('{"first":true}');
      await expect.poll(() => listener.messages.length, { timeout: 3_000 }).toBeGreaterThan(0);
      // Redis delivers in order: an end sent after the start would be here by now.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(listener.messages.map((message) => message.type)).toEqual(["start"]);
      expect(listener.messages[0]).toMatchObject({ status: 200, end: {} });
    } finally {
      await listener.close();
      handle.disconnect();
    }
  });

  it("a reply whose end is late reaches A's caller before it ends (its first bytes do not wait for it)", async () => {
    const ends: Array<() => void> = [];
    const handle = connectTwoPart("p-late-end", "application/json", ends);
    const offer = await offerOnA("p-late-end");
    // The agent's stream ends only after A has the response: holding the start until the end would hang here.
    const response = await replicaA.dispatch(offer, "{}", dispatchOptions());
    expect(response.status).toBe(200);
    ends[0]?.();
    expect(await response.text()).toBe('{"first":true}');
    handle.disconnect();
  });

  it("an event stream's first bytes reach A before its end", async () => {
    const ends: Array<() => void> = [];
    const handle = connectTwoPart("p-stream-first", "text/event-stream", ends);
    const offer = await offerOnA("p-stream-first");
    const listener = await listenToA();
    try {
      const response = await replicaA.dispatch(offer, "{}", dispatchOptions());
      const reader = response.body?.getReader();
      if (!reader) throw new Error("no body");
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toBe('{"first":true');
      // The agent is still producing: what A heard is a start without an end.
      await expect.poll(() => listener.messages.length, { timeout: 3_000 }).toBe(1);
      expect(listener.messages.map((message) => message.type)).toEqual(["start"]);
      expect(listener.messages[0]?.end).toBeUndefined();
      ends[0]?.();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("}");
      expect((await reader.read()).done).toBe(true);
    } finally {
      await listener.close();
      handle.disconnect();
    }
  });

  it("provider health is shared: failures seen on A demote the provider on C, and C's successes are seen on A", async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) healthA.recordFailure("flaky-upstream", 10);
    await expect.poll(() => healthC.isDemoted("flaky-upstream"), { timeout: 3_000 }).toBe(true);
    for (let attempt = 0; attempt < 8; attempt += 1) healthC.recordSuccess("flaky-upstream", 10);
    await expect.poll(() => healthA.isDemoted("flaky-upstream"), { timeout: 3_000 }).toBe(false);
    expect(healthC.isDemoted("flaky-upstream")).toBe(false);
  });

  it("measured performance is shared: both replicas hold the same figures from each one's samples", async () => {
    const key = performanceKey("host-1", "gpt-4o-mini");
    for (let index = 0; index < 12; index += 1) {
      performanceA.record(key, { ttftMs: 100 + index, outputTokens: 50, durationMs: 600, ok: true });
      performanceC.record(key, {
        ttftMs: 300,
        outputTokens: 80,
        durationMs: 1_300,
        ok: index % 4 !== 0,
        error: "stall",
      });
    }
    await expect
      .poll(() => [performanceA.figures(key).requests, performanceC.figures(key).requests], {
        timeout: 3_000,
      })
      .toEqual([24, 24]);
    const a = performanceA.figures(key);
    const c = performanceC.figures(key);
    expect(a.measured).toBe(true);
    expect(c.ttftMs).toBeCloseTo(a.ttftMs ?? Number.NaN, 6);
    expect(c.tokensPerSecond).toBeCloseTo(a.tokensPerSecond ?? Number.NaN, 6);
    expect(c.successRate).toBeCloseTo(21 / 24, 3);
    expect(a.successRate).toBeCloseTo(21 / 24, 3);
    expect(a.recentErrors.map((error) => error.error)).toEqual(["stall", "stall", "stall"]);
  });
});
