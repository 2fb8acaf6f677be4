import type { RateLimiter } from "./fixed-window";

/** The one Redis operation the limiter needs: count a hit in a window key that expires with it. */
export interface WindowCounter {
  increment(key: string, ttlMs: number): Promise<number>;
}

/**
 * A fixed-window limiter shared by every gateway replica through Redis, so replicas
 * agree on one count per client and window.
 */
export function createRedisRateLimiter(
  counter: WindowCounter,
  limit: number,
  windowMs: number,
  prefix: string,
): RateLimiter {
  return {
    async hit(key) {
      const now = Date.now();
      const window = Math.floor(now / windowMs);
      const count = await counter.increment(`${prefix}:${key}:${window}`, windowMs);
      if (count <= limit) return { allowed: true };
      const windowEnd = (window + 1) * windowMs;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
    },
  };
}
