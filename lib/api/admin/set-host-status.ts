import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { type HostStatus, setHostStatus as storeHostStatus } from "../../providers/host-status";
import type { ApiCall } from "../route-definition";

/**
 * POST /v1/admin/hosts/<provider_id>/activate and …/suspend – an operator sets a host
 * routable or not. Until the bond is checked on-chain, activation is this admin step.
 */
export function setHostStatus(status: Extract<HostStatus, "active" | "suspended">) {
  return async ({ app, params }: ApiCall<"admin">): Promise<Response> => {
    const id = (params.id ?? "").toLowerCase();
    if (!isUuid(id) || !(await storeHostStatus(app.database.db, id, status))) {
      throw new GatewayError("not_found", "host not found");
    }
    return jsonResponse({ provider_id: id, status });
  };
}
