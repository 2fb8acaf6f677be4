import { describe, expect, it } from "vitest";
import { newId, newTimeOrderedUuid, newUuid } from "./ids";

const second = () => Math.floor(Date.now() / 1000);

const waitForTheNextSecond = async () => {
  const started = second();
  while (second() === started) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe("ids", () => {
  it("lead with the minting second, so an id minted in a later second sorts after", async () => {
    const before = second();
    const first = newId("req");
    await waitForTheNextSecond();
    const later = newId("req");
    expect(first).toMatch(/^req_[0-9a-f]{32}$/);
    expect(later > first).toBe(true);
    const minted = Number.parseInt(first.slice(4, 12), 16);
    expect(minted).toBeGreaterThanOrEqual(before);
    expect(minted).toBeLessThanOrEqual(second());
  });

  it("keep 96 random bits after the time: no two of many ids minted at once are alike", () => {
    // More than the random pool holds, so ids come from several refills.
    const ids = Array.from({ length: 5_000 }, () => newId("req"));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(12))).size).toBe(ids.length);
  });

  it("carry no clock finer than the second (how long a request took inside stays unseen)", () => {
    const ids = Array.from({ length: 200 }, () => newId("req"));
    const seconds = new Set(ids.map((id) => id.slice(4, 12)));
    // 200 ids minted in a few milliseconds: one second, or two across a boundary.
    expect(seconds.size).toBeLessThanOrEqual(2);
    const uuids = Array.from({ length: 200 }, () => newTimeOrderedUuid().replace(/-/g, "").slice(0, 12));
    for (const stamp of uuids) expect(Number.parseInt(stamp, 16) % 1000).toBe(0);
  });

  it("make version 7 uuids whose first 48 bits are the minting second in milliseconds", async () => {
    const before = second();
    const first = newTimeOrderedUuid();
    await waitForTheNextSecond();
    const later = newTimeOrderedUuid();
    for (const uuid of [first, later])
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(later > first).toBe(true);
    const minted = Number.parseInt(first.replace(/-/g, "").slice(0, 12), 16) / 1000;
    expect(minted).toBeGreaterThanOrEqual(before);
    expect(minted).toBeLessThanOrEqual(second());
    const many = Array.from({ length: 5_000 }, () => newTimeOrderedUuid());
    expect(new Set(many).size).toBe(many.length);
  });

  it("keep secrets fully random: newUuid is a version 4 uuid with no clock in it", () => {
    const secrets = Array.from({ length: 200 }, () => newUuid());
    for (const secret of secrets)
      expect(secret).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Minted within the same moment, time-ordered ids share their leading digits; random ones do not.
    expect(new Set(secrets.map((secret) => secret.slice(0, 6))).size).toBeGreaterThan(190);
  });
});
