import { jsonResponse } from "../../http/responses";
import { listRelayKeys as loadRelayKeys } from "../../relays/relay-keys";
import type { ApiCall } from "../route-definition";
import { relayKeyView } from "./relay-key-view";

/** GET /v1/host/relay-keys – the host's relay keys; the keys themselves are never returned. */
export async function listRelayKeys({ app, principal: host }: ApiCall<"host">): Promise<Response> {
  const keys = await loadRelayKeys(app.database.db, host.id);
  return jsonResponse({ relay_keys: keys.map(relayKeyView) }, 200, { "cache-control": "no-store" });
}
