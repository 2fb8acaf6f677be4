import { GatewayError } from "../../errors/gateway-error";
import { jsonResponse } from "../../http/responses";
import { deleteStoredResponse, findWrittenResponse, responseOwner } from "../../responses/stored-responses";
import type { ApiCall } from "../route-definition";

function responseId(call: ApiCall<"token">): string {
  const id = call.params.id ?? "";
  if (!/^resp_[A-Za-z0-9_-]{1,200}$/.test(id))
    throw new GatewayError("not_found", `response not found: ${id}`);
  return id;
}

/** GET /proxy/<token>/v1/responses/:id – a response this key (or any key of this token) stored, as answered. */
export async function getStoredResponse(call: ApiCall<"token">): Promise<Response> {
  const id = responseId(call);
  const row = await findWrittenResponse(call.app, responseOwner(call.principal), id);
  if (!row) throw new GatewayError("not_found", `response not found: ${id}`);
  return jsonResponse(row.response);
}

/** DELETE /proxy/<token>/v1/responses/:id – forgets a stored response (only the key that made it, or its token, can). */
export async function deleteResponse(call: ApiCall<"token">): Promise<Response> {
  const id = responseId(call);
  const deleted = await deleteStoredResponse(call.app, responseOwner(call.principal), id);
  if (!deleted) throw new GatewayError("not_found", `response not found: ${id}`);
  return jsonResponse({ id, object: "response", deleted: true });
}
