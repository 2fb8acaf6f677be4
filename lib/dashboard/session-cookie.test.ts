import { describe, expect, it } from "vitest";
import { lastUtcDays } from "./queries";
import { clearedSessionCookie, sessionCookie } from "./session-cookie";

describe("dashboard session cookie", () => {
  it("is HttpOnly, SameSite=Strict and limited to the dashboard's pages", () => {
    const cookie = sessionCookie("11111111-2222-4333-8444-555555555555", false);
    expect(cookie.split("; ")).toEqual([
      "pod_dashboard=11111111-2222-4333-8444-555555555555",
      "Path=/dashboard",
      "Max-Age=2592000",
      "HttpOnly",
      "SameSite=Strict",
    ]);
    expect(sessionCookie("x", true)).toMatch(/; Secure$/);
  });

  it("is cleared with the same path and attributes", () => {
    expect(clearedSessionCookie(false)).toBe(
      "pod_dashboard=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Strict",
    );
  });
});

describe("chart days", () => {
  it("lists the last n UTC days oldest first, today included, across a month end", () => {
    expect(lastUtcDays(3, new Date("2026-03-01T00:30:00Z"))).toEqual([
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
    ]);
  });
});
