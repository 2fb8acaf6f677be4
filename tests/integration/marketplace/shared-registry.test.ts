import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../../lib/log";
import type { AgentTransport, LiveOffer } from "../../../lib/marketplace/registry";
import { SharedMarketplaceRegistry } from "../../../lib/marketplace/shared-registry";
import { HealthTracker } from "../../../lib/routing/health-tracker";
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
  const sources: Source[] = [];

  const make = (name: string, health: HealthTracker) => {
    const registry = new SharedMarketplaceRegistry({
      redisUrl: redis.url ?? "",
      namespace,
      replicaId: `gw_${name}_${randomBytes(3).toString("hex")}`,
      replicaName: name,
      heartbeatTimeoutMs: 30_000,
      replicaTimeoutMs: 1_500,
    });
    health.share(registry.shareHealth(health));
    registry.start();
    return registry;
  };

  beforeAll(async () => {
    setLogLevel("silent");
    replicaA = make("a", healthA);
    replicaC = make("c", healthC);
    const deadline = Date.now() + 5_000;
    while (replicaA.status().peers < 1 || replicaC.status().peers < 1) {
      if (Date.now() > deadline) throw new Error("the two replicas never heard each other");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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
    await new Promise((resolve) => setTimeout(resolve, 500));
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

  it("provider health is shared: failures seen on A demote the provider on C, and C's successes are seen on A", async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) healthA.recordFailure("flaky-upstream", 10);
    await expect.poll(() => healthC.isDemoted("flaky-upstream"), { timeout: 3_000 }).toBe(true);
    for (let attempt = 0; attempt < 8; attempt += 1) healthC.recordSuccess("flaky-upstream", 10);
    await expect.poll(() => healthA.isDemoted("flaky-upstream"), { timeout: 3_000 }).toBe(false);
    expect(healthC.isDemoted("flaky-upstream")).toBe(false);
  });
});
