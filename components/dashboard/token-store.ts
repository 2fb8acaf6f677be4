/**
 * The token remembered on this device (localStorage) and the sign-in call that turns it into
 * the dashboard's HttpOnly cookie. Browser-only helpers for the client components.
 */
const tokenStorageKey = "pod-dashboard-token";
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isTokenShaped(value: string): boolean {
  return uuidPattern.test(value);
}

export function rememberedToken(): string | undefined {
  try {
    return localStorage.getItem(tokenStorageKey) ?? undefined;
  } catch {
    return undefined;
  }
}

export function rememberToken(token: string): void {
  try {
    localStorage.setItem(tokenStorageKey, token);
  } catch {
    // Storage can be refused (private browsing): the cookie still signs this tab in.
  }
}

export function forgetToken(): void {
  try {
    localStorage.removeItem(tokenStorageKey);
  } catch {
    // nothing remembered
  }
}

export type SignInResult = { ok: true } | { ok: false; message: string; unknown: boolean };

/** POST /dashboard/session: the token goes in the body, never in a URL. */
export async function signIn(token: string): Promise<SignInResult> {
  try {
    const response = await fetch("/dashboard/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_token: token }),
      credentials: "same-origin",
    });
    if (response.ok) return { ok: true };
    const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    return {
      ok: false,
      message: body.error?.message ?? `sign-in failed (HTTP ${response.status})`,
      unknown: response.status === 401,
    };
  } catch {
    return { ok: false, message: "the gateway could not be reached", unknown: false };
  }
}

export async function signOut(): Promise<void> {
  forgetToken();
  await fetch("/dashboard/session", { method: "DELETE", credentials: "same-origin" }).catch(() => undefined);
}

/** `#token=<uuid>` from a dashboard_url, if the address bar carries one. */
export function tokenFromHash(hash: string): string | undefined {
  const value = new URLSearchParams(hash.replace(/^#/, "")).get("token")?.trim();
  return value !== undefined && isTokenShaped(value) ? value : undefined;
}
