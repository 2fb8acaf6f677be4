/**
 * The dashboard's sign-in cookie. It carries the token itself so server components can read
 * the person's data without the token ever being in a URL: HttpOnly keeps page scripts away
 * from it, SameSite=Strict keeps other sites from riding on it, and Path limits it to the
 * dashboard's pages (the API never reads it; API calls carry the token in their path).
 */
export const dashboardCookieName = "pod_dashboard";
const dashboardCookiePath = "/dashboard";
const maxAgeSeconds = 30 * 24 * 60 * 60;

export function sessionCookie(token: string, secure: boolean): string {
  return cookieHeader(dashboardCookieName, token, dashboardCookiePath, maxAgeSeconds, secure);
}

export function clearedSessionCookie(secure: boolean): string {
  return cookieHeader(dashboardCookieName, "", dashboardCookiePath, 0, secure);
}

/** A `Set-Cookie` value as every dashboard cookie is set: HttpOnly, SameSite=Strict, Secure over https. */
export function cookieHeader(
  name: string,
  value: string,
  path: string,
  maxAge: number,
  secure: boolean,
): string {
  const parts = [`${name}=${value}`, `Path=${path}`, `Max-Age=${maxAge}`, "HttpOnly", "SameSite=Strict"];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}
