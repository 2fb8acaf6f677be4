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
  const parts = [
    `${dashboardCookieName}=${token}`,
    `Path=${dashboardCookiePath}`,
    `Max-Age=${maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

export function clearedSessionCookie(secure: boolean): string {
  const parts = [
    `${dashboardCookieName}=`,
    `Path=${dashboardCookiePath}`,
    "Max-Age=0",
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}
