import { createClient } from "@redis/client";
import { afterAll, describe, expect, it } from "vitest";
import { testRedis } from "../../tests/helpers/services";
import { cacheKey } from "./cache-key";
import { redisResponseStore } from "./redis-response-store";
import { ResponseCache } from "./response-cache";
import { MemoryResponseStore } from "./response-store";

const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], temperature: 0 };
const key = (overrides: Partial<Parameters<typeof cacheKey>[0]> = {}) =>
  cacheKey({ accountId: 7n, dialect: "openai", body, headers: new Headers(), ...overrides });

const answer = {
  dialect: "openai" as const,
  body: JSON.stringify({ id: "chatcmpl-1", choices: [] }),
  cost: "1234",
  provider: "openai",
  model: "gpt-4o-mini",
};
const settings = { ttlSeconds: 60, shared: false, hitPercent: 10, maxEntryBytes: 1024 };

describe("the response cache's entry names", () => {
  it("differ by account, format, any answer-changing field or routing header; not by framing", () => {
    const base = key();
    expect(key({ body: { temperature: 0, messages: body.messages, model: "gpt-4o-mini" } })).toBe(base);
    expect(
      key({ body: { ...body, stream: true, stream_options: { include_usage: true }, cache: true } }),
    ).toBe(base);
    expect(key({ accountId: 8n })).not.toBe(base);
    expect(key({ accountId: undefined })).not.toBe(base);
    expect(key({ dialect: "anthropic" })).not.toBe(base);
    expect(key({ body: { ...body, seed: 1 } })).not.toBe(base);
    expect(key({ body: { ...body, tools: [] } })).not.toBe(base);
    expect(key({ headers: new Headers({ "x-pod-providers": "openai" }) })).not.toBe(base);
    expect(key({ headers: new Headers({ "anthropic-beta": "x" }) })).not.toBe(base);
    // A header that names nothing of the answer is no part of it.
    expect(key({ headers: new Headers({ "x-pod-cache-scope": "shared", "x-pod-account": "8" }) })).toBe(base);
  });
});

describe("the memory store", () => {
  it("holds at most its cap (the oldest go first), expires entries, and refuses an oversized answer", async () => {
    let now = 1_000;
    const store = new MemoryResponseStore(3, () => now);
    for (const name of ["a", "b", "c", "d"]) await store.set(name, name, 1_000);
    expect(store.size).toBe(3);
    expect(await store.get("a")).toBeUndefined();
    expect(await store.get("d")).toBe("d");
    now += 1_000;
    expect(await store.get("d")).toBeUndefined();

    const cache = new ResponseCache(new MemoryResponseStore(10), settings);
    cache.keep("big", 60_000, { ...answer, body: "x".repeat(2_000) });
    expect(await cache.lookup("big")).toBeUndefined();
    cache.keep("small", 60_000, answer);
    expect(await cache.lookup("small")).toMatchObject({ cost: "1234", provider: "openai" });
    expect(cache.hitCharge({ ...answer, v: 1, storedAt: 0 })).toBe(124n);
  });

  it("reads a foreign value as no answer", async () => {
    const store = new MemoryResponseStore(10);
    const cache = new ResponseCache(store, settings);
    await store.set("k", JSON.stringify({ v: 1, dialect: "openai", body: "{}", cost: "-5" }), 60_000);
    await store.set("j", "not json", 60_000);
    expect(await cache.lookup("k")).toBeUndefined();
    expect(await cache.lookup("j")).toBeUndefined();
  });
});

const redis = testRedis();

describe.skipIf(redis.skipReason !== undefined)("the Redis store", () => {
  const namespace = `rc-unit-${process.pid}-${Date.now()}`;
  const stores: ReturnType<typeof redisResponseStore>[] = [];
  const open = () => {
    const store = redisResponseStore({ url: redis.url ?? "", namespace, maxEntries: 3, maxTtlMs: 60_000 });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  /** Waits for the client's connection (the store never waits for it itself). */
  async function ready(store: ReturnType<typeof redisResponseStore>): Promise<void> {
    expect(await store.connected).toBe(true);
  }

  it("is shared by replicas, capped across them, and expires entries", async () => {
    const one = open();
    const two = open();
    await ready(one);
    await ready(two);
    const cacheOne = new ResponseCache(one, settings);
    const cacheTwo = new ResponseCache(two, settings);
    cacheOne.keep("shared", 60_000, answer);
    let seen = await cacheTwo.lookup("shared");
    for (let attempt = 0; attempt < 200 && !seen; attempt += 1) seen = await cacheTwo.lookup("shared");
    expect(seen).toMatchObject({ model: "gpt-4o-mini" });

    // The cap holds whichever replica keeps: 3 entries, the oldest ("shared") gone.
    for (const name of ["e1", "e2", "e3", "e4"]) await (name < "e3" ? one : two).set(name, name, 60_000);
    const client = createClient({ url: redis.url ?? "" });
    await client.connect();
    try {
      expect(await client.zCard(`${namespace}:rc-index`)).toBe(3);
      expect(await client.exists(`${namespace}:rc:shared`)).toBe(0);
      expect(await one.get("e4")).toBe("e4");
      // Its own expiry: gone once the time passed (polled, never slept for).
      await one.set("short", "s", 30);
      let value = await one.get("short");
      for (let attempt = 0; attempt < 1_000 && value !== undefined; attempt += 1)
        value = await one.get("short");
      expect(value).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
