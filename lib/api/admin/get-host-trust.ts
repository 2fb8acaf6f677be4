import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { findHosts } from "../../providers/host-status";
import { hostTrustRecord } from "../../trust/trust-view";
import type { ApiCall } from "../route-definition";

/** GET /v1/admin/hosts/<provider_id>/trust – the host's standing, why, its recent record with evidence, and its slashes. */
export async function getHostTrust({ app, params }: ApiCall<"admin">): Promise<Response> {
  const id = (params.id ?? "").toLowerCase();
  if (!isUuid(id) || !(await findHosts(app.database.db, [id])).has(id))
    throw new GatewayError("not_found", "host not found");
  return jsonResponse(await hostTrustRecord(app.database.db, id), 200, { "cache-control": "no-store" });
}
