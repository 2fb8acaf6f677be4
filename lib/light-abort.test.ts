import { describe, expect, it } from "vitest";
import { LightAbort } from "./light-abort";

describe("LightAbort", () => {
  it("runs each listener once, in the order added, with the reason readable", () => {
    const abort = new LightAbort();
    const seen: string[] = [];
    abort.addEventListener("abort", () => seen.push(`a:${String(abort.reason)}`));
    abort.addEventListener("abort", () => seen.push("b"));
    const reason = new Error("client disconnected");
    abort.abort(reason);
    abort.abort(new Error("again"));
    expect(seen).toEqual(["a:Error: client disconnected", "b"]);
    expect(abort.aborted).toBe(true);
    expect(abort.reason).toBe(reason);
  });

  it("does not run a listener removed, added twice, or added after the abort", () => {
    const abort = new LightAbort();
    let calls = 0;
    const count = () => {
      calls += 1;
    };
    const removed = () => {
      calls += 100;
    };
    abort.addEventListener("abort", count);
    abort.addEventListener("abort", count);
    abort.addEventListener("abort", removed);
    abort.removeEventListener("abort", removed);
    abort.abort();
    abort.addEventListener("abort", count);
    expect(calls).toBe(1);
  });

  it("gives AbortController's default reason", () => {
    const abort = new LightAbort();
    abort.abort();
    const controller = new AbortController();
    controller.abort();
    expect(abort.reason).toBeInstanceOf(DOMException);
    expect((abort.reason as DOMException).name).toBe((controller.signal.reason as DOMException).name);
  });

  it("runs every listener when one throws, then throws the first error", () => {
    const abort = new LightAbort();
    const seen: number[] = [];
    abort.addEventListener("abort", () => {
      throw new Error("first");
    });
    abort.addEventListener("abort", () => seen.push(2));
    expect(() => abort.abort()).toThrow("first");
    expect(seen).toEqual([2]);
  });

  it("makes a web AbortSignal only when asked, following the abort before or after", () => {
    const before = new LightAbort();
    const signal = before.signal;
    expect(before.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    const reason = new Error("late headers");
    before.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);

    const after = new LightAbort();
    after.abort(reason);
    expect(after.signal.aborted).toBe(true);
    expect(after.signal.reason).toBe(reason);
  });
});
