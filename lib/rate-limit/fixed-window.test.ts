import { describe, expect, it } from "vitest";
import { createMemoryRateLimiter } from "./fixed-window";

describe("memory rate limiter", () => {
  it("allows the limit per window, then refuses with the seconds left, then resets", async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter(3, 60_000, () => now);
    for (let index = 0; index < 3; index += 1) expect((await limiter.hit("a")).allowed).toBe(true);
    expect(await limiter.hit("a")).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect((await limiter.hit("b")).allowed).toBe(true);
    now += 45_000;
    expect(await limiter.hit("a")).toEqual({ allowed: false, retryAfterSeconds: 15 });
    now += 15_000;
    expect((await limiter.hit("a")).allowed).toBe(true);
  });
});
