import { describe, expect, it } from "vitest";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import { JournalWindow } from "./journal-window";

const full = () => gatewayMetrics.journalWindowFull.value();

describe("JournalWindow", () => {
  it("lets out at most `bound` answers at once, and one more once one closes", () => {
    const window = new JournalWindow(3, 1_000_000n);
    expect([1, 2, 3, 4].map(() => window.tryOpen(10n))).toEqual([true, true, true, false]);
    expect(window.open).toBe(3);
    window.close(10n);
    expect(window.tryOpen(10n)).toBe(true);
    expect(window.widest).toBe(3);
  });

  it("lets out at most `microunitBound` of cost at once: exactly the bound fits, one microunit more waits", () => {
    const window = new JournalWindow(100, 1_000n);
    const before = full();
    expect(window.tryOpen(600n)).toBe(true);
    expect(window.tryOpen(401n)).toBe(false);
    expect(window.tryOpen(400n)).toBe(true);
    expect(window.openMicrounits).toBe(1_000n);
    expect(window.tryOpen(1n)).toBe(false);
    // A free answer leaves nothing unbilled: it never waits for the money bound.
    expect(window.tryOpen(0n)).toBe(true);
    expect(full() - before).toBe(2);
    window.close(600n);
    expect(window.openMicrounits).toBe(400n);
    expect(window.tryOpen(600n)).toBe(true);
  });

  it("an answer costing more than the whole bound always waits for its journal row", () => {
    const window = new JournalWindow(100, 1_000n);
    expect(window.tryOpen(1_001n)).toBe(false);
    expect(window.open).toBe(0);
    expect(window.openMicrounits).toBe(0n);
  });

  it("bound 0 sends every answer to the journal, whatever it costs", () => {
    const window = new JournalWindow(0, 1_000_000n);
    expect(window.tryOpen(0n)).toBe(false);
    expect(window.tryOpen(1n)).toBe(false);
    expect(window.open).toBe(0);
  });

  it("costs at the edge of the type add up exactly (bigint, no rounding)", () => {
    const bound = 2n ** 62n;
    const window = new JournalWindow(10, bound);
    expect(window.tryOpen(bound - 1n)).toBe(true);
    expect(window.tryOpen(1n)).toBe(true);
    expect(window.tryOpen(1n)).toBe(false);
    expect(window.openMicrounits).toBe(bound);
  });
});
