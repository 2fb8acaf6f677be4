import { randomBytes } from "node:crypto";
import { createClient } from "@redis/client";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ChangeSignal,
  connectReplicaSignals,
  type ReplicaSignals,
} from "../../lib/replica-signals/replica-signals";
import { testRedis } from "../helpers/services";

/**
 * A change's signal is answered only once the other replicas have acted on it. Besides two
 * replicas of this code, a third subscriber written from the protocol (a raw Redis client)
 * plays a replica that is slow to answer, one that never answers, and one that answers with
 * forged or malformed replies: the publish must wait for the slow one, give up on the silent one
 * within its bound, and count no forged reply.
 */
const redis = testRedis();

describe.skipIf(redis.url === undefined)("replica signals wait for every replica to hear them", () => {
  const opened: ReplicaSignals[] = [];
  const raw: { close(): Promise<void> }[] = [];
  let namespace = "";

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((signals) => signals.close()));
    await Promise.all(raw.splice(0).map((client) => client.close()));
  });

  async function replica(name: string, heard: ChangeSignal[]): Promise<ReplicaSignals> {
    const signals = await connectReplicaSignals({
      url: redis.url ?? "",
      namespace,
      replicaId: name,
      onSignal: (signal) => heard.push(signal),
    });
    opened.push(signals);
    return signals;
  }

  /**
   * A subscriber from the protocol: `answer` decides what it publishes back for each signal, and
   * `delayMs` when; `onAnswered` is told when it did.
   */
  async function protocolPeer(
    answer: (message: Record<string, unknown>) => string[],
    delayMs = 0,
    onAnswered: () => void = () => undefined,
  ) {
    const subscriber = createClient({ url: redis.url ?? "" });
    const publisher = subscriber.duplicate();
    raw.push(subscriber, publisher);
    await Promise.all([subscriber.connect(), publisher.connect()]);
    const channel = `${namespace}:signals`;
    await subscriber.subscribe(channel, (text) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return; // its own malformed reply, heard back
      }
      if (message.type !== "catalog" && message.type !== "credential") return;
      setTimeout(() => {
        onAnswered();
        for (const reply of answer(message)) publisher.publish(channel, reply).catch(() => undefined);
      }, delayMs);
    });
  }

  const fresh = () => {
    namespace = `acks-${randomBytes(4).toString("hex")}`;
  };

  it("waits for a slow replica's answer, and the other replica acted before the publish returns", async () => {
    fresh();
    const heardByB: ChangeSignal[] = [];
    const a = await replica("replica-a", []);
    await replica("replica-b", heardByB);
    const slowMs = 300;
    let slowAnsweredAt = 0;
    await protocolPeer(
      (message) => [JSON.stringify({ type: "heard", from: "slow", id: message.id })],
      slowMs,
      () => {
        slowAnsweredAt = performance.now();
      },
    );
    const started = performance.now();
    await a.publish({ type: "catalog" });
    const returnedAt = performance.now();
    expect(heardByB).toHaveLength(1);
    expect(heardByB[0]?.type).toBe("catalog");
    expect(slowAnsweredAt).toBeGreaterThan(0);
    expect(returnedAt).toBeGreaterThanOrEqual(slowAnsweredAt);
    expect(returnedAt - started).toBeGreaterThanOrEqual(slowMs - 5);
  });

  it("gives up on a replica that never answers within its bound", async () => {
    fresh();
    const a = await replica("replica-a", []);
    await protocolPeer(() => []);
    const started = performance.now();
    await a.publish({ type: "catalog" });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(3_000);
  });

  it("counts no forged, malformed, misaddressed or self-sent answer", async () => {
    fresh();
    const a = await replica("replica-a", []);
    // The silent peer makes every publish wait for one answer that only a real reply can give.
    await protocolPeer((message) => [
      JSON.stringify({ type: "heard", from: "forger", id: "0000000000000000" }),
      JSON.stringify({ type: "heard", from: "forger", id: `${String(message.id)}00` }),
      JSON.stringify({ type: "heard", from: "forger" }),
      JSON.stringify({ type: "heard", from: "replica-a", id: message.id }),
      "{not json",
      JSON.stringify({ type: "heard", from: "x".repeat(5_000), id: message.id }),
    ]);
    const started = performance.now();
    await a.publish({ type: "credential", hash: "ab".repeat(32) });
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("counts replicas, not replies: one peer answering twice does not stand in for a silent one", async () => {
    fresh();
    const a = await replica("replica-a", []);
    await protocolPeer((message) => [
      JSON.stringify({ type: "heard", from: "twice", id: message.id }),
      JSON.stringify({ type: "heard", from: "twice", id: message.id }),
    ]);
    await protocolPeer(() => []);
    const started = performance.now();
    await a.publish({ type: "catalog" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("returns at once when no other replica listens", async () => {
    fresh();
    const a = await replica("replica-a", []);
    const started = performance.now();
    await a.publish({ type: "catalog" });
    expect(performance.now() - started).toBeLessThan(500);
  });
});
