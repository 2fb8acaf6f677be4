import { createClient } from "@redis/client";
import { log } from "../log";
import type { ResponseStore } from "./response-store";

/** A read never waits on Redis longer than this: past it the request is a miss and goes upstream. */
const commandTimeoutMs = 250;

/**
 * Keeps the value with its expiry and its place in the index (a sorted set by time kept), then
 * drops the expired names from the index and, past the cap, the oldest entries themselves: one
 * round trip, atomic, so replicas keeping answers together never pass the cap.
 */
const keepScript = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3] - ARGV[5])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
  for _, name in ipairs(oldest) do redis.call('DEL', name) end
end
return 1`;

export interface RedisStoreOptions {
  url: string;
  /** REDIS_NAMESPACE: one deployment's replicas share one cache. */
  namespace: string;
  maxEntries: number;
  /** The longest an entry lives: index names older than this have expired. */
  maxTtlMs: number;
}

/**
 * The replicas' shared store: each entry a Redis string with its own expiry (PX), named under
 * `<namespace>:rc:`; an index of names by time keeps the count at `maxEntries`. Redis unreachable
 * is a miss (no offline queue, a short timeout): the cache never holds a request up.
 */
export function redisResponseStore(options: RedisStoreOptions): ResponseStore & {
  /** Settles once the first connection is made (true) or failed (false); nothing waits on it but tests. */
  connected: Promise<boolean>;
} {
  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 1_000,
      reconnectStrategy: (retries) => Math.min(retries * 200, 5_000),
    },
  });
  client.on("error", (error: unknown) => log.warn("redis error (response cache)", { error }));
  let closing = false;
  const connected = client.connect().then(
    () => true,
    (error: unknown) => {
      if (!closing)
        log.warn("response cache: Redis unreachable at start; every request is a miss until it answers", {
          error,
        });
      return false;
    },
  );
  const commands = client.withCommandOptions({ timeout: commandTimeoutMs });
  const prefix = `${options.namespace}:rc:`;
  const indexKey = `${options.namespace}:rc-index`;
  return {
    connected,
    async get(key) {
      if (!client.isReady) return undefined;
      const value = await commands.get(prefix + key).catch((error: unknown) => {
        log.warn("response cache: Redis read failed, served as a miss", { error });
        return null;
      });
      return typeof value === "string" ? value : undefined;
    },
    async set(key, value, ttlMs) {
      if (!client.isReady) return;
      await commands.eval(keepScript, {
        keys: [prefix + key, indexKey],
        arguments: [
          value,
          String(ttlMs),
          String(Date.now()),
          String(options.maxEntries),
          String(options.maxTtlMs),
        ],
      });
    },
    async close() {
      closing = true;
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    },
  };
}
