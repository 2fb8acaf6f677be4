import { describe, expect, it } from "vitest";
import { settledWithin } from "./settled-within";

describe("settledWithin", () => {
  it("is true for work that settles in time, fulfilled or rejected", async () => {
    expect(await settledWithin(Promise.resolve(1), 50)).toBe(true);
    expect(await settledWithin(Promise.reject(new Error("no")), 50)).toBe(true);
  });

  it("is false for work still pending when the time is up, and for no time at all", async () => {
    const never = new Promise<void>(() => undefined);
    const started = performance.now();
    expect(await settledWithin(never, 30)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(await settledWithin(Promise.resolve(), 0)).toBe(false);
    expect(await settledWithin(Promise.resolve(), -5)).toBe(false);
  });
});
