import { badRequest, GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { readJsonBody } from "../http/read-body";
import { errorResponse, jsonResponse } from "../http/responses";
import { newId } from "../ids";
import type { Services } from "../services";
import { findDashboardToken } from "./queries";
import { clearedSessionCookie, sessionCookie } from "./session-cookie";

/**
 * POST /dashboard/session {api_token} signs a browser in (sets the cookie); DELETE signs it out.
 * The token travels in the body, never in a URL. Only same-origin JSON requests are accepted:
 * a cross-site form cannot send JSON, and the origin check stops a page elsewhere from signing
 * a visitor into someone else's token (who would then fund it).
 */
export async function handleDashboardSession(app: Services, request: ApiRequest): Promise<Response> {
  const secure = isSecure(app, request);
  try {
    assertSameOrigin(app, request);
    if (request.method === "DELETE") {
      return new Response(null, { status: 204, headers: { "set-cookie": clearedSessionCookie(secure) } });
    }
    if (request.method !== "POST") throw new GatewayError("method_not_allowed", "use POST or DELETE");
    if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json"))
      throw badRequest('send the token as JSON: {"api_token": "<token>"}');
    const body = await readJsonBody(request, 4096);
    const token =
      typeof body === "object" && body !== null && "api_token" in body && typeof body.api_token === "string"
        ? body.api_token.trim()
        : undefined;
    if (token === undefined) throw badRequest("api_token is required");
    const record = await findDashboardToken(app.database.db, token);
    if (!record)
      throw new GatewayError("unauthorized", "unknown token: check that you pasted the whole token");
    return jsonResponse({ signed_in: true }, 200, {
      "set-cookie": sessionCookie(token, secure),
      "cache-control": "no-store",
    });
  } catch (error) {
    return errorResponse("openai", error, newId("req"), { "cache-control": "no-store" });
  }
}

export function isSecure(app: Services, request: ApiRequest): boolean {
  if (app.env.PUBLIC_BASE_URL?.startsWith("https:")) return true;
  if (app.env.TRUST_PROXY && request.headers.get("x-forwarded-proto") === "https") return true;
  return new URL(request.url).protocol === "https:";
}

/** Refuses a request another site's page made (a cross-site form or fetch riding on the cookie). */
export function assertSameOrigin(app: Services, request: ApiRequest): void {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none")
    throw new GatewayError("forbidden", "sign in from the dashboard page itself");
  const origin = request.headers.get("origin");
  if (origin === null) return;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new GatewayError("forbidden", "sign in from the dashboard page itself");
  }
  const allowed = new Set<string>();
  const host = request.headers.get("host");
  if (host) allowed.add(host);
  if (app.env.TRUST_PROXY) {
    const forwarded = request.headers.get("x-forwarded-host");
    if (forwarded) allowed.add(forwarded.split(",")[0]?.trim() ?? "");
  }
  if (app.env.PUBLIC_BASE_URL) allowed.add(new URL(app.env.PUBLIC_BASE_URL).host);
  if (!allowed.has(originHost)) throw new GatewayError("forbidden", "sign in from the dashboard page itself");
}
