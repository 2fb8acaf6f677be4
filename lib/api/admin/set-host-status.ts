import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { operatorOf, recordOperatorAction } from "../../operator-log/operator-actions";
import { type HostStatus, setHostStatus as storeHostStatus } from "../../providers/host-status";
import type { ApiCall } from "../route-definition";

/**
 * POST /v1/admin/hosts/<provider_id>/activate and …/suspend – an operator sets a host
 * routable or not. Until the bond is checked on-chain, activation is this admin step.
 */
export function setHostStatus(status: Extract<HostStatus, "active" | "suspended">) {
  return async ({ app, params, request }: ApiCall<"admin">): Promise<Response> => {
    const id = (params.id ?? "").toLowerCase();
    const found =
      isUuid(id) &&
      (await app.database.db.transaction(async (tx) => {
        if (!(await storeHostStatus(tx, id, status))) return false;
        await recordOperatorAction(tx, {
          operator: operatorOf(request),
          action: status === "active" ? "host_activate" : "host_suspend",
          subject: id,
        });
        return true;
      }));
    if (!found) throw new GatewayError("not_found", "host not found");
    return jsonResponse({ provider_id: id, status });
  };
}
