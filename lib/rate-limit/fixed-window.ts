/** Outcome of one rate-limit check; `retryAfterSeconds` is what a 429 tells the caller. */
type RateLimitResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  hit(key: string): Promise<RateLimitResult>;
}

/**
 * A per-process fixed-window limiter. One gateway process needs nothing more; several
 * replicas share limits through Redis (REDIS_URL) instead.
 */
export function createMemoryRateLimiter(
  limit: number,
  windowMs: number,
  now: () => number = Date.now,
): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async hit(key) {
      const time = now();
      let window = windows.get(key);
      if (!window || time - window.start >= windowMs) {
        window = { start: time, count: 0 };
        windows.set(key, window);
        if (windows.size > 10_000) {
          for (const [other, value] of windows) if (time - value.start >= windowMs) windows.delete(other);
        }
      }
      window.count += 1;
      if (window.count <= limit) return { allowed: true };
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((window.start + windowMs - time) / 1000)),
      };
    },
  };
}
