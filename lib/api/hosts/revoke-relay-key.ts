import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { isUuid } from "../../ids";
import { revokeRelayKey as storeRevocation } from "../../relays/relay-keys";
import type { ApiCall } from "../route-definition";

/** DELETE /v1/host/relay-keys/<id> – revoke a key: its ciphertext is erased and its listings disabled. */
export async function revokeRelayKey({ app, params, principal: host }: ApiCall<"host">): Promise<Response> {
  const id = (params.id ?? "").toLowerCase();
  if (!isUuid(id) || !(await storeRevocation(app.database.db, host.id, id))) {
    throw new GatewayError("not_found", "relay key not found");
  }
  return jsonResponse({ id, revoked: true });
}
