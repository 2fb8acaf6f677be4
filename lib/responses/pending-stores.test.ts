import { describe, expect, it } from "vitest";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import { PendingResponseStores } from "./pending-stores";

/** A write the test finishes (or fails) when it chooses. */
function heldWrite() {
  let finish: (error?: Error) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  return { write: () => done, finish };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("stored-response writes behind their answers", () => {
  it("an answer is not held by its write; a lookup of the id waits for it", async () => {
    const stores = new PendingResponseStores();
    const held = heldWrite();
    let answered = false;
    void stores
      .behind(() => ({ id: "resp_a", write: held.write }))
      .then(() => {
        answered = true;
      });
    await nextTurn();
    await nextTurn();
    expect(answered).toBe(true);
    const pending = stores.settled("resp_a");
    expect(pending).toBeDefined();
    let looked = false;
    void pending?.then(() => {
      looked = true;
    });
    await nextTurn();
    expect(looked).toBe(false);
    held.finish();
    await pending;
    expect(stores.settled("resp_a")).toBeUndefined();
  });

  it("a refused write is counted, and its waiters resolve (they then find nothing)", async () => {
    const stores = new PendingResponseStores();
    const failures = gatewayMetrics.storedResponseFailures.value();
    const held = heldWrite();
    await stores.behind(() => ({ id: "resp_refused", write: held.write }));
    await nextTurn();
    const pending = stores.settled("resp_refused");
    held.finish(new Error("refused"));
    await expect(pending).resolves.toBeUndefined();
    expect(gatewayMetrics.storedResponseFailures.value() - failures).toBe(1);
    // A prepare that throws (an answer that cannot be read) is counted too, never thrown out of the event loop.
    await stores.behind(() => {
      throw new Error("unreadable");
    });
    await stores.idle();
    expect(gatewayMetrics.storedResponseFailures.value() - failures).toBe(2);
  });

  it("past 1,000 writes behind their answers, the next answer waits for its own; idle waits for all", async () => {
    const stores = new PendingResponseStores();
    const held = heldWrite();
    const full = gatewayMetrics.storedResponseWindowFull.value();
    for (let index = 0; index < 1_000; index += 1)
      await stores.behind(() => ({ id: `resp_${index}`, write: held.write }));
    const own = heldWrite();
    let answered = false;
    const waiting = stores
      .behind(() => ({ id: "resp_over", write: own.write }))
      .then(() => {
        answered = true;
      });
    await nextTurn();
    await nextTurn();
    expect(answered).toBe(false);
    expect(gatewayMetrics.storedResponseWindowFull.value() - full).toBe(1);
    own.finish();
    await waiting;
    expect(answered).toBe(true);
    let idle = false;
    const idled = stores.idle().then(() => {
      idle = true;
    });
    await nextTurn();
    expect(idle).toBe(false);
    held.finish();
    await idled;
    expect(stores.settled("resp_0")).toBeUndefined();
  });
});
