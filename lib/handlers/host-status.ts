import type { AppContext } from "../app-context";
import { GatewayError } from "../errors/gateway-error";
import { type HostStatus, setHostStatus } from "../hosts/host-status";
import { requireAdmin } from "../hosts/require-admin";
import { errorResponse, jsonResponse } from "../http/responses";
import { isUuid } from "../ids";

/**
 * POST /v1/admin/hosts/<provider_id>/activate and …/suspend – an operator sets a host
 * routable or not. Until the bond is checked on-chain, activation is this admin step.
 */
export async function handleHostStatusChange(
  app: AppContext,
  request: Request,
  providerId: string,
  status: Extract<HostStatus, "active" | "suspended">,
): Promise<Response> {
  try {
    requireAdmin(app.env, request);
    const id = providerId.toLowerCase();
    if (!isUuid(id) || !(await setHostStatus(app.database.db, id, status))) {
      throw new GatewayError("not_found", "host not found");
    }
    return jsonResponse({ provider_id: id, status });
  } catch (error) {
    return errorResponse("openai", error);
  }
}
