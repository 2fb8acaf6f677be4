import { timingSafeEqual } from "node:crypto";
import type { Env } from "../env";
import { GatewayError } from "../errors/gateway-error";

/** Admin endpoints need `Authorization: Bearer <ADMIN_TOKEN>`; without ADMIN_TOKEN they do not exist. */
export function requireAdmin(env: Env, request: Request): void {
  const adminToken = env.ADMIN_TOKEN;
  if (!adminToken) throw new GatewayError("not_found", "admin API is disabled (ADMIN_TOKEN is not set)");
  const presented = Buffer.from((request.headers.get("authorization") ?? "").replace(/^Bearer\s+/i, ""));
  const wanted = Buffer.from(adminToken);
  if (presented.length !== wanted.length || !timingSafeEqual(presented, wanted)) {
    throw new GatewayError("unauthorized", "unauthorized: invalid admin token");
  }
}
