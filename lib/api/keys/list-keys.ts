import type { ListKeysResponse } from "@pod-gateway/contracts/account-keys";
import { jsonResponse } from "../../http/responses";
import { requireScope } from "../../tokens/key-scopes";
import { keyViews, listKeys as listAccountKeys } from "../../tokens/manage-keys";
import type { ApiCall } from "../route-definition";

/** GET /proxy/<token>/keys – the account's further API keys, revoked ones too, with their spend. */
export async function listKeys({ app, principal }: ApiCall<"token">): Promise<Response> {
  requireScope(principal, "manage");
  // What this process settled is written first, so a key's spend includes the last response.
  await app.leases?.flush();
  const rows = await listAccountKeys(app.database.db, principal);
  const body: ListKeysResponse = { keys: await keyViews(app.database.db, app.keyLimits, rows) };
  return jsonResponse(body, 200, { "cache-control": "no-store" });
}
