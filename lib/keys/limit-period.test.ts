import { describe, expect, it } from "vitest";
import { periodEnd, periodStart } from "./limit-period";

describe("limit periods", () => {
  it("a day is the UTC calendar day, a month the UTC calendar month", () => {
    const now = new Date("2026-12-31T23:59:59.999Z");
    expect(periodStart("day", now).toISOString()).toBe("2026-12-31T00:00:00.000Z");
    expect(periodEnd("day", now).toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(periodStart("month", now).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(periodEnd("month", now).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});
