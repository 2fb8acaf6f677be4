import { log } from "../log";
import { createMemoryRateLimiter, type RateLimiter } from "./fixed-window";
import { connectRedisCounter, type RedisCounterConnection } from "./redis-counter";
import { createRedisRateLimiter } from "./redis-window";

/** Builds the per-minute limiters of one process, shared across replicas when Redis is configured. */
export interface LimiterFactory {
  perMinute(limit: number, name: string): RateLimiter;
  close(): Promise<void>;
}

/**
 * With REDIS_URL every replica counts in the same Redis window; if Redis becomes unreachable
 * a limit falls back to this process's own window rather than refusing every caller. Keys start
 * with REDIS_NAMESPACE (`<namespace>:rl:<limit>:<client>:<window>`), so two gateways sharing one
 * Redis keep separate counts, as their marketplaces do.
 */
export async function createLimiterFactory(
  redisUrl: string | undefined,
  namespace: string,
): Promise<LimiterFactory> {
  const connection: RedisCounterConnection | undefined = redisUrl
    ? await connectRedisCounter(redisUrl)
    : undefined;
  return {
    perMinute(limit, name) {
      const local = createMemoryRateLimiter(limit, 60_000);
      if (!connection) return local;
      const shared = createRedisRateLimiter(connection.counter, limit, 60_000, `${namespace}:rl:${name}`);
      return {
        async hit(key) {
          try {
            return await shared.hit(key);
          } catch (error) {
            log.warn("shared rate limit unavailable, using the local window", { error });
            return local.hit(key);
          }
        },
      };
    },
    close: async () => {
      await connection?.close();
    },
  };
}
