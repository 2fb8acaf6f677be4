import { createHash, timingSafeEqual } from "node:crypto";
import { GatewayError } from "../errors/gateway-error";
import { authenticateHost } from "../hosts/authenticate-host";
import type { ApiRequest } from "../http/api-request";
import { authenticateToken } from "../tokens/authenticate-token";
import type { ApiServices } from "./api-services";
import type { AuthKind, Principals } from "./route-definition";

/** The credential of `Authorization: Bearer <credential>`; anything else (a bare token) is none. */
function bearerCredential(request: ApiRequest): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1];
}

/** Admin routes need `Authorization: Bearer <ADMIN_TOKEN>`; without ADMIN_TOKEN they do not exist. */
function requireAdmin(app: ApiServices, request: ApiRequest): void {
  const adminToken = app.env.ADMIN_TOKEN;
  if (!adminToken) throw new GatewayError("not_found", "admin API is disabled (ADMIN_TOKEN is not set)");
  // Digests of equal length: comparing raw lengths first would tell the token's length by timing.
  const presented = createHash("sha256")
    .update(bearerCredential(request) ?? "")
    .digest();
  const wanted = createHash("sha256").update(adminToken).digest();
  if (!timingSafeEqual(presented, wanted)) {
    throw new GatewayError(
      "unauthorized",
      "unauthorized: invalid admin token (send Authorization: Bearer <ADMIN_TOKEN>)",
    );
  }
}

/** Checks the credential a route's auth kind asks for and returns who is calling. */
export async function authenticate<A extends AuthKind>(
  kind: A,
  app: ApiServices,
  request: ApiRequest,
  params: Readonly<Record<string, string>>,
): Promise<Principals[A]> {
  let principal: Principals[AuthKind];
  switch (kind) {
    case "token":
      principal = await authenticateToken(app.database.db, params.token ?? "", app.env.KEY_CACHE_MS);
      break;
    case "host":
      principal = await authenticateHost(app.database.db, request);
      break;
    case "admin":
      requireAdmin(app, request);
      principal = undefined;
      break;
    default:
      principal = undefined;
  }
  // The switch above pairs each kind with its principal; TS cannot narrow A through it.
  return principal as Principals[A];
}
