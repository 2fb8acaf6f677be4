import { resolveModelOrThrow } from "../../catalog/unknown-model";
import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { deleteListing as removeListing } from "../../relays/relay-listings";
import type { ApiCall } from "../route-definition";

/** DELETE /v1/host/listings/<model> – remove the host's listing for a model. */
export async function deleteListing({ app, params, principal: host }: ApiCall<"host">): Promise<Response> {
  const model = await resolveModelOrThrow(app, params.model ?? "");
  if (!(await removeListing(app.database.db, host.id, model.id)))
    throw new GatewayError("not_found", "listing not found");
  return jsonResponse({ model: model.id, deleted: true });
}
