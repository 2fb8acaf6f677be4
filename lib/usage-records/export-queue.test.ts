import { describe, expect, it } from "vitest";
import { type DropReason, ExportQueue, type SendResult } from "./export-queue";

const limits = { maxQueued: 3, maxBatch: 2, delayMs: 0, firstBackoffMs: 5, maxBackoffMs: 20 };

function recorder() {
  const drops: Array<[number, DropReason]> = [];
  let failures = 0;
  return {
    drops,
    failures: () => failures,
    events: {
      dropped: (count: number, reason: DropReason) => drops.push([count, reason]),
      failed: () => failures++,
    },
  };
}

describe("export queue", () => {
  it("sends in batches of at most maxBatch, in order", async () => {
    const sent: number[][] = [];
    const queue = new ExportQueue<number>(
      "test",
      async (batch) => {
        sent.push(batch);
        return "sent";
      },
      { ...limits, maxQueued: 10 },
    );
    for (const item of [1, 2, 3, 4, 5]) queue.add(item);
    await queue.close(1_000);
    expect(sent.flat()).toEqual([1, 2, 3, 4, 5]);
    expect(Math.max(...sent.map((batch) => batch.length))).toBeLessThanOrEqual(2);
  });

  it("drops a batch its receiver refuses for good, and goes on with the next", async () => {
    const { drops, events } = recorder();
    const sent: number[] = [];
    const queue = new ExportQueue<number>(
      "test",
      async (batch) => {
        if (batch.includes(1)) return "refused";
        sent.push(...batch);
        return "sent";
      },
      { ...limits, maxBatch: 1 },
      events,
    );
    queue.add(1);
    queue.add(2);
    await queue.close(1_000);
    expect(sent).toEqual([2]);
    expect(drops).toEqual([[1, "refused"]]);
  });

  it("gives up at the drain deadline when the receiver never takes a batch, and counts what it lost", async () => {
    const { drops, failures, events } = recorder();
    const queue = new ExportQueue<number>(
      "test",
      (_batch, signal) =>
        new Promise<SendResult>((resolve) => signal.addEventListener("abort", () => resolve("retry"))),
      limits,
      events,
    );
    for (const item of [1, 2, 3, 4]) queue.add(item);
    expect(queue.queued).toBe(3);
    expect(drops).toEqual([[1, "queue_full"]]);
    await queue.close(50);
    expect(queue.queued).toBe(0);
    expect(drops).toEqual([
      [1, "queue_full"],
      [3, "stopped"],
    ]);
    expect(failures()).toBe(1);
    // Closed: nothing more is queued.
    expect(queue.add(5)).toBe(false);
  });

  it("retries a failing send with a growing wait and delivers once it succeeds", async () => {
    const { failures, events } = recorder();
    let attempts = 0;
    const queue = new ExportQueue<number>(
      "test",
      async () => (++attempts < 4 ? "retry" : "sent"),
      limits,
      events,
    );
    queue.add(1);
    await queue.close(5_000);
    expect(attempts).toBe(4);
    expect(failures()).toBe(3);
    expect(queue.queued).toBe(0);
  });
});
