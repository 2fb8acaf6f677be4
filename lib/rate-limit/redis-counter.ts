import { createClient } from "@redis/client";
import { log } from "../log";
import { settledWithin } from "../settled-within";
import type { WindowCounter } from "./redis-window";

export interface RedisCounterConnection {
  counter: WindowCounter;
  close(): Promise<void>;
}

/** How long a start waits for Redis before going on without it (limits then count per replica). */
const connectWaitMs = 2_000;
/** A hit never waits on Redis longer than this: the limiter falls back to the local window. */
const commandTimeoutMs = 1_000;

/**
 * Connects to Redis and counts window hits with INCR and PEXPIRE in one MULTI round trip. A
 * Redis that is down does not hold the start (nor any request): the client keeps reconnecting in
 * the background, commands fail at once meanwhile (no offline queue) and the caller counts locally.
 */
export async function connectRedisCounter(url: string): Promise<RedisCounterConnection> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: commandTimeoutMs,
      reconnectStrategy: (retries) => Math.min(retries * 200, 5_000),
    },
  });
  client.on("error", (error: unknown) => log.warn("redis error", { error }));
  const connected = client.connect().then(
    () => true,
    () => false,
  );
  const ready = (await settledWithin(connected, connectWaitMs)) && (await connected);
  if (!ready) log.warn("Redis unreachable at start: rate limits count per replica until it answers");
  const commands = client.withCommandOptions({ timeout: commandTimeoutMs });
  return {
    counter: {
      async increment(key, ttlMs) {
        const [count] = await commands.multi().incr(key).pExpire(key, ttlMs).exec();
        return Number(count);
      },
    },
    close: async () => {
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    },
  };
}
