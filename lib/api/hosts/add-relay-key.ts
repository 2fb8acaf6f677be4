import { z } from "zod";
import { GatewayError } from "../../errors/gateway-error";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { relayEncryptionKey } from "../../relays/relay-encryption-key";
import { addRelayKey as storeRelayKey } from "../../relays/relay-keys";
import { isRelayUpstreamKind, relayUpstreamKinds } from "../../relays/relay-upstream";
import type { ApiCall } from "../route-definition";
import { relayKeyView } from "./relay-key-view";

const addKeySchema = z.object({
  upstream: z.string().refine(isRelayUpstreamKind, `must be one of ${relayUpstreamKinds.join(", ")}`),
  api_key: z.string().min(8).max(512).regex(/^\S+$/, "must not contain whitespace"),
  label: z.string().trim().min(1).max(100).optional(),
});

/** POST /v1/host/relay-keys – store an upstream key, encrypted at rest (AES-256-GCM). */
export async function addRelayKey({ app, request, principal: host, bodyLimit }: ApiCall<"host">) {
  const encryptionKey = relayEncryptionKey(app.env);
  const body = await readValidatedJson(request, addKeySchema, bodyLimit);
  if (!isRelayUpstreamKind(body.upstream))
    throw new GatewayError("bad_request", "bad request: unknown upstream");
  const key = await storeRelayKey(app.database.db, encryptionKey, {
    hostId: host.id,
    upstream: body.upstream,
    apiKey: body.api_key,
    label: body.label,
  });
  return jsonResponse(relayKeyView(key), 201, { "cache-control": "no-store" });
}
