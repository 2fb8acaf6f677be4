/**
 * A console action from the browser: POST|PUT /dashboard/admin/act/<admin path>, which runs the
 * admin API's handler for /v1/admin/<admin path> under the signed-in operator's name.
 */
export type ActionResult = { ok: true; body: unknown } | { ok: false; message: string };

export async function consoleAction(
  path: string,
  options: { method?: "POST" | "PUT"; body?: unknown } = {},
): Promise<ActionResult> {
  try {
    const response = await fetch(`/dashboard/admin/act/${path}`, {
      method: options.method ?? "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(options.body ?? {}),
      credentials: "same-origin",
    });
    const body: unknown = await response.json().catch(() => ({}));
    if (response.ok) return { ok: true, body };
    const message = (body as { error?: { message?: string } }).error?.message;
    return { ok: false, message: message ?? `the action failed (HTTP ${response.status})` };
  } catch {
    return { ok: false, message: "the gateway could not be reached" };
  }
}
