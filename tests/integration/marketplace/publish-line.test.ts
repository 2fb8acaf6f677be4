import { createClient } from "@redis/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PublishLine } from "../../../lib/marketplace/publish-line";
import { type PrivateRedis, privateRedisSkipReason, startPrivateRedis } from "../../helpers/private-redis";

/**
 * The replicas' publish line (issue 20): a connection that only sends PUBLISH and reads their
 * replies. Each case runs a private redis-server (frozen, killed, with a password or an ACL that
 * forbids PUBLISH): what is checked is that a message is reported delivered only when Redis said
 * a subscriber got it, and that every way the connection can go wrong reports "not delivered"
 * and leaves the line down (the bus then publishes through node-redis) until it is back.
 */
const skipReason = privateRedisSkipReason();
if (skipReason) console.warn(skipReason);

type Reply = number | undefined;

function published(line: PublishLine, channel: string, message: string): Promise<Reply> {
  return new Promise<Reply>((resolve) => {
    if (!line.publish(channel, message, resolve)) resolve(-1);
  });
}

function until(condition: () => boolean): Promise<void> {
  return vi.waitFor(() => expect(condition()).toBe(true), { timeout: 10_000, interval: 20 });
}

describe.skipIf(skipReason !== undefined)("the replicas' publish line", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function redisWith(args: string[] = []): Promise<PrivateRedis> {
    const redis = await startPrivateRedis(args);
    cleanups.push(() => redis.stop());
    return redis;
  }

  function lineTo(url: string): PublishLine {
    const line = new PublishLine(url);
    cleanups.push(() => line.close());
    line.start();
    return line;
  }

  async function subscriber(url: string, channel: string): Promise<string[]> {
    const client = createClient({ url });
    await client.connect();
    const heard: string[] = [];
    await client.subscribe(channel, (message) => heard.push(message));
    cleanups.push(() => client.close());
    return heard;
  }

  it("delivers every message whole and in order (CRLF, multi-byte text, 300 KB), and counts its receivers", async () => {
    const redis = await redisWith();
    const heard = await subscriber(redis.url, "jobs");
    const line = lineTo(redis.url);
    await until(() => line.ready);
    const messages = [
      "plain",
      "with\r\nCRLF inside and a $5\r\n that looks like RESP",
      "héllo, 世界, 🚀",
      "x".repeat(300 * 1024),
      "",
      ...Array.from({ length: 200 }, (_, index) => `#${index}`),
    ];
    const replies = await Promise.all(messages.map((message) => published(line, "jobs", message)));
    expect(replies).toEqual(messages.map(() => 1));
    await until(() => heard.length === messages.length);
    expect(heard).toEqual(messages);
    // Nobody listens: delivered to 0, which the bus reports as not delivered.
    expect(await published(line, "nobody-here", "lost")).toBe(0);
  });

  it("authenticates with the URL's credentials, and never comes up with wrong ones", async () => {
    const redis = await redisWith(["--requirepass", "s3cret:/@"]);
    const withPassword = (password: string) =>
      redis.url.replace("redis://", `redis://:${encodeURIComponent(password)}@`);
    const heard = await subscriber(withPassword("s3cret:/@"), "authed");
    const good = lineTo(withPassword("s3cret:/@"));
    const bad = lineTo(withPassword("wrong"));
    const none = lineTo(redis.url);
    await until(() => good.ready);
    expect(await published(good, "authed", "in")).toBe(1);
    await until(() => heard.length === 1);
    // A refused AUTH, or none where one is needed, fails the PING the line waits for: once Redis
    // has answered each with an error, neither line has ever been up.
    await until(() => bad.outcomes.refused > 0 && none.outcomes.refused > 0);
    for (const down of [bad, none]) {
      expect(down.outcomes.up).toBe(0);
      expect(down.ready).toBe(false);
      expect(down.publish("authed", "never", () => undefined)).toBe(false);
    }
    expect(heard).toEqual(["in"]);
  });

  it("an error reply (an ACL without PUBLISH) counts as not delivered and takes the line down", async () => {
    const redis = await redisWith(["--user", "bob", "on", ">pw", "~*", "&*", "+@all", "-publish"]);
    const line = lineTo(redis.url.replace("redis://", "redis://bob:pw@"));
    await until(() => line.ready);
    const replies = await Promise.all([
      published(line, "anything", "first"),
      published(line, "anything", "second"),
    ]);
    expect(replies).toEqual([undefined, undefined]);
    expect(line.ready).toBe(false);
  });

  it("a Redis that stops answering: waiting messages are reported lost within about a second, and the line comes back", async () => {
    const redis = await redisWith();
    const heard = await subscriber(redis.url, "frozen");
    const line = lineTo(redis.url);
    await until(() => line.ready);
    redis.pause();
    const started = Date.now();
    const reply = await published(line, "frozen", "into the void");
    const waited = Date.now() - started;
    redis.resume();
    expect(reply).toBeUndefined();
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(3_000);
    expect(line.ready).toBe(false);
    await until(() => line.ready);
    expect(await published(line, "frozen", "after")).toBe(1);
    await until(() => heard.includes("after"));
  });

  it("Redis killed and started again: the line is down while it is gone, and up again after", async () => {
    const redis = await redisWith();
    const line = lineTo(redis.url);
    await until(() => line.ready);
    await redis.stop();
    await until(() => !line.ready);
    expect(line.publish("gone", "nothing", () => undefined)).toBe(false);
    await redis.restart();
    const heard = await subscriber(redis.url, "back");
    await until(() => line.ready);
    expect(await published(line, "back", "again")).toBe(1);
    await until(() => heard.length === 1);
  });
});
