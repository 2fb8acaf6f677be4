import { describe, expect, it } from "vitest";
import { ReceiptSlot } from "./receipt-slot";

/** Each order of the three parties (the settlement queued, its batch, the signer) stores the receipt once. */
describe("ReceiptSlot", () => {
  it("offered while queued: the batch takes it, and takes the same again when retried", () => {
    const slot = new ReceiptSlot();
    const alone: string[] = [];
    slot.queued();
    expect(slot.offer("a.b.c", (jws) => alone.push(jws))).toBe(true);
    expect(slot.take()).toBe("a.b.c");
    expect(slot.take()).toBe("a.b.c");
    expect(alone).toEqual([]);
  });

  it("taken by its batch before it was signed: refused, so the signer stores it on its own", () => {
    const slot = new ReceiptSlot();
    slot.queued();
    expect(slot.take()).toBeUndefined();
    expect(slot.offer("a.b.c", () => {})).toBe(false);
    // A retry of the batch does not pick it up after all (it is stored elsewhere by then).
    expect(slot.take()).toBeUndefined();
  });

  it("taken before the settlement was even marked queued (a batch written at once): refused", () => {
    const slot = new ReceiptSlot();
    expect(slot.take()).toBeUndefined();
    slot.queued();
    expect(slot.offer("a.b.c", () => {})).toBe(false);
  });

  it("never queued (a settlement on a hold row, written in its own statement): refused", () => {
    expect(new ReceiptSlot().offer("a.b.c", () => {})).toBe(false);
  });

  it("closed after it was offered (a quarantine, a batch the ledger cannot take now): stored elsewhere once, never taken", () => {
    const slot = new ReceiptSlot();
    const alone: string[] = [];
    slot.queued();
    slot.offer("a.b.c", (jws) => alone.push(jws));
    slot.close();
    slot.close();
    expect(alone).toEqual(["a.b.c"]);
    expect(slot.take()).toBeUndefined();
  });

  it("closed before it was signed: refused", () => {
    const slot = new ReceiptSlot();
    slot.queued();
    slot.close();
    expect(slot.offer("a.b.c", () => {})).toBe(false);
  });
});
