import { log } from "../log";
import type { RateLimiter } from "./fixed-window";
import { connectRedisCounter } from "./redis-counter";
import { createRedisRateLimiter } from "./redis-window";

export interface SharedLimiter {
  limiter: RateLimiter;
  close(): Promise<void>;
}

/**
 * Connects the Redis-backed limiter that replicas share. If Redis becomes unreachable the
 * limit falls back to this process's own window rather than refusing every caller.
 */
export async function connectSharedRateLimiter(
  url: string,
  limit: number,
  windowMs: number,
  fallback: RateLimiter,
): Promise<SharedLimiter> {
  const connection = await connectRedisCounter(url);
  const shared = createRedisRateLimiter(connection.counter, limit, windowMs);
  return {
    limiter: {
      async hit(key) {
        try {
          return await shared.hit(key);
        } catch (error) {
          log.warn("shared rate limit unavailable, using the local window", { error });
          return fallback.hit(key);
        }
      },
    },
    close: () => connection.close(),
  };
}
