import { describe, expect, it } from "vitest";
import { InMemoryMarketplaceRegistry } from "./in-memory-registry";
import type { AgentTransport } from "./registry";

const offer = {
  modelId: "gpt-4o-mini",
  dialect: "openai" as const,
  inputPer1m: 100n,
  outputPer1m: 200n,
  maxConcurrent: 2,
};
const options = { signal: new AbortController().signal, forwardHeaders: {} };

function streamingTransport(): { transport: AgentTransport; finish: () => void } {
  let close: (() => void) | undefined;
  const transport: AgentTransport = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("data: x\n\n"));
          close = () => controller.close();
        },
      }),
    );
  return { transport, finish: () => close?.() };
}

describe("InMemoryMarketplaceRegistry", () => {
  it("offers only live connections, with their free slots", () => {
    let now = 0;
    const registry = new InMemoryMarketplaceRegistry({ now: () => now, heartbeatTimeoutMs: 45_000 });
    const handle = registry.connect({
      providerId: "p1",
      offers: [offer],
      transport: streamingTransport().transport,
    });
    expect(registry.liveOffers()).toMatchObject([{ providerId: "p1", freeSlots: 2 }]);
    now = 45_001;
    expect(registry.liveOffers()).toEqual([]);
    handle.heartbeat(12.5);
    expect(registry.liveOffers()).toMatchObject([{ providerId: "p1", tokensPerSecond: 12.5 }]);
    handle.disconnect();
    expect(registry.liveOffers()).toEqual([]);
  });

  it("holds a slot until the body ends, and refuses a job with none free", async () => {
    const registry = new InMemoryMarketplaceRegistry();
    const { transport, finish } = streamingTransport();
    registry.connect({ providerId: "p1", offers: [{ ...offer, maxConcurrent: 1 }], transport });
    const [live] = registry.liveOffers();
    if (!live) throw new Error("no offer");
    const response = await registry.dispatch(live, "{}", options);
    expect(registry.liveOffers()[0]?.freeSlots).toBe(0);
    await expect(registry.dispatch(live, "{}", options)).rejects.toThrow(/capacity/);
    finish();
    await response.text();
    expect(registry.liveOffers()[0]?.freeSlots).toBe(1);
  });

  it("frees the slot when the reader cancels or the transport fails", async () => {
    const registry = new InMemoryMarketplaceRegistry();
    registry.connect({
      providerId: "p1",
      offers: [offer],
      maxConcurrentTotal: 1,
      transport: streamingTransport().transport,
    });
    const [live] = registry.liveOffers();
    if (!live) throw new Error("no offer");
    const response = await registry.dispatch(live, "{}", options);
    expect(registry.liveOffers()[0]?.freeSlots).toBe(0);
    await response.body?.cancel();
    expect(registry.liveOffers()[0]?.freeSlots).toBe(1);

    registry.connect({
      providerId: "p2",
      offers: [offer],
      transport: () => Promise.reject(new Error("backend down")),
    });
    const failing = registry.liveOffers().find((item) => item.providerId === "p2");
    if (!failing) throw new Error("no offer");
    await expect(registry.dispatch(failing, "{}", options)).rejects.toThrow("backend down");
    expect(registry.liveOffers().find((item) => item.providerId === "p2")?.freeSlots).toBe(2);
  });
});
