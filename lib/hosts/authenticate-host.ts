import { eq } from "drizzle-orm";
import type { Executor } from "../db/client";
import { type Host, hosts } from "../db/schema";
import { GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { hashHostToken } from "./host-codes";

const hostTokenPattern = /^pod_host_[A-Za-z0-9]{40}$/;

/** Resolves `Authorization: Bearer pod_host_…` to its host, or throws a 401. */
export async function authenticateHost(executor: Executor, request: ApiRequest): Promise<Host> {
  const header = request.headers.get("authorization") ?? "";
  const token = header.replace(/^Bearer\s+/i, "").trim();
  if (!hostTokenPattern.test(token)) {
    throw new GatewayError(
      "unauthorized",
      "unauthorized: send the host token as Authorization: Bearer pod_host_…",
    );
  }
  const rows = await executor
    .select()
    .from(hosts)
    .where(eq(hosts.hostTokenHash, hashHostToken(token)));
  const host = rows[0];
  if (!host) throw new GatewayError("unauthorized", "unauthorized: unknown host token");
  return host;
}
