import { describe, expect, it } from "vitest";
import {
  isAdminToken,
  operatorCookieValue,
  operatorSessionCookie,
  signOperatorSession,
  verifyOperatorSession,
} from "./operator-session";

const adminToken = "admin-token-for-the-console-test";
const now = new Date("2026-11-29T03:00:00Z");
const hours = (count: number) => new Date(now.getTime() + count * 3_600_000);

describe("operator console session", () => {
  it("names the operator it was signed for, until it expires", () => {
    const value = signOperatorSession(adminToken, "Ada Lovelace", now);
    expect(verifyOperatorSession(adminToken, value, hours(11))?.operator).toBe("Ada Lovelace");
    expect(verifyOperatorSession(adminToken, value, hours(12))).toBeUndefined();
  });

  it("refuses a cookie signed with another admin token, or none configured", () => {
    const value = signOperatorSession("the-previous-admin-token", "Ada", now);
    expect(verifyOperatorSession(adminToken, value, now)).toBeUndefined();
    expect(
      verifyOperatorSession(undefined, signOperatorSession(adminToken, "Ada", now), now),
    ).toBeUndefined();
  });

  it("refuses a cookie whose name or expiry was changed, or that is not one at all", () => {
    const [name, expires, signature] = signOperatorSession(adminToken, "Ada", now).split(".");
    const otherName = Buffer.from("Mallory").toString("base64url");
    expect(verifyOperatorSession(adminToken, `${otherName}.${expires}.${signature}`, now)).toBeUndefined();
    expect(
      verifyOperatorSession(adminToken, `${name}.${Number(expires) + 86_400}.${signature}`, now),
    ).toBeUndefined();
    for (const junk of [
      "",
      "a.b.c",
      `${name}.${expires}.`,
      "11111111-2222-4333-8444-555555555555",
      "x".repeat(500),
    ])
      expect(verifyOperatorSession(adminToken, junk, now)).toBeUndefined();
  });

  it("is HttpOnly, SameSite=Strict and limited to the console, and read back from a Cookie header", () => {
    const value = signOperatorSession(adminToken, "Ada", now);
    expect(operatorSessionCookie(value, false).split("; ")).toEqual([
      `pod_operator=${value}`,
      "Path=/dashboard/admin",
      "Max-Age=43200",
      "HttpOnly",
      "SameSite=Strict",
    ]);
    expect(operatorCookieValue(`pod_dashboard=abc; pod_operator=${value}; theme=dark`)).toBe(value);
    expect(operatorCookieValue("pod_dashboard=abc")).toBeUndefined();
  });

  it("compares the admin token whole", () => {
    expect(isAdminToken(adminToken, adminToken)).toBe(true);
    expect(isAdminToken(adminToken, adminToken.slice(0, -1))).toBe(false);
    expect(isAdminToken(undefined, "")).toBe(false);
  });
});
