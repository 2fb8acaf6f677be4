import { createClient } from "@redis/client";
import { log } from "../log";
import type { WindowCounter } from "./redis-window";

export interface RedisCounterConnection {
  counter: WindowCounter;
  close(): Promise<void>;
}

/** Connects to Redis and counts window hits with INCR and PEXPIRE in one MULTI round trip. */
export async function connectRedisCounter(url: string): Promise<RedisCounterConnection> {
  const client = createClient({
    url,
    socket: { reconnectStrategy: (retries) => Math.min(retries * 200, 5_000) },
  });
  client.on("error", (error: unknown) => log.warn("redis error", { error }));
  await client.connect();
  return {
    counter: {
      async increment(key, ttlMs) {
        const [count] = await client.multi().incr(key).pExpire(key, ttlMs).exec();
        return Number(count);
      },
    },
    close: async () => {
      await client.quit().catch(() => undefined);
    },
  };
}
