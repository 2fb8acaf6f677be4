import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { cookieHeader } from "./session-cookie";

/**
 * The operator console's sign-in cookie. Unlike the person's, it does not carry the admin
 * token: it carries the operator's name and an expiry, signed with a key derived from
 * ADMIN_TOKEN. So the name every console action is logged under cannot be forged, a stolen
 * cookie dies after 12 hours, and changing ADMIN_TOKEN signs every console out at once.
 * HttpOnly, SameSite=Strict and a path of /dashboard/admin, as the person's.
 */
export const operatorCookieName = "pod_operator";
const operatorCookiePath = "/dashboard/admin";
const maxAgeSeconds = 12 * 60 * 60;

export interface OperatorSession {
  operator: string;
  expiresAt: Date;
}

function signingKey(adminToken: string): Buffer {
  return createHash("sha256").update(`pod-gateway operator console session\n${adminToken}`).digest();
}

function signature(adminToken: string, payload: string): string {
  return createHmac("sha256", signingKey(adminToken)).update(payload).digest("base64url");
}

/** The cookie's value: `<name, base64url>.<expiry, unix seconds>.<HMAC>`. */
export function signOperatorSession(adminToken: string, operator: string, now: Date): string {
  const expires = Math.floor(now.getTime() / 1000) + maxAgeSeconds;
  const payload = `${Buffer.from(operator, "utf8").toString("base64url")}.${expires}`;
  return `${payload}.${signature(adminToken, payload)}`;
}

/** The operator a cookie value names, when it is signed with this ADMIN_TOKEN and not expired. */
export function verifyOperatorSession(
  adminToken: string | undefined,
  value: string | undefined,
  now: Date,
): OperatorSession | undefined {
  if (!adminToken || value === undefined || value.length > 400) return undefined;
  const match = /^([A-Za-z0-9_-]{1,320})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return undefined;
  const [, name = "", expires = "", presented = ""] = match;
  const wanted = Buffer.from(signature(adminToken, `${name}.${expires}`));
  if (!timingSafeEqual(Buffer.from(presented), wanted)) return undefined;
  const expiresAt = new Date(Number(expires) * 1000);
  if (expiresAt <= now) return undefined;
  return { operator: Buffer.from(name, "base64url").toString("utf8"), expiresAt };
}

export function operatorSessionCookie(value: string, secure: boolean): string {
  return cookieHeader(operatorCookieName, value, operatorCookiePath, maxAgeSeconds, secure);
}

export function clearedOperatorSessionCookie(secure: boolean): string {
  return cookieHeader(operatorCookieName, "", operatorCookiePath, 0, secure);
}

/** The operator cookie's value in a `Cookie` header, if there is one. */
export function operatorCookieValue(cookieHeader: string | null): string | undefined {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === operatorCookieName) return rest.join("=");
  }
  return undefined;
}

/** Compares a presented admin token with ADMIN_TOKEN in constant time (digests of equal length). */
export function isAdminToken(adminToken: string | undefined, presented: string): boolean {
  if (!adminToken) return false;
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(adminToken).digest();
  return timingSafeEqual(a, b);
}
