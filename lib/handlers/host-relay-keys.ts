import { z } from "zod";
import type { AppContext } from "../app-context";
import { GatewayError } from "../errors/gateway-error";
import { authenticateHost } from "../hosts/authenticate-host";
import { errorResponse, jsonResponse } from "../http/responses";
import { isUuid } from "../ids";
import { relayEncryptionKey } from "../relays/relay-encryption-key";
import { addRelayKey, listRelayKeys, type RelayKeyView, revokeRelayKey } from "../relays/relay-keys";
import { isRelayUpstreamKind, relayUpstreamKinds } from "../relays/relay-upstream";
import { readHostBody } from "./host-request-body";

const addKeySchema = z.object({
  upstream: z.string().refine(isRelayUpstreamKind, `must be one of ${relayUpstreamKinds.join(", ")}`),
  api_key: z.string().min(8).max(512).regex(/^\S+$/, "must not contain whitespace"),
  label: z.string().trim().min(1).max(100).optional(),
});

function keyView(key: RelayKeyView) {
  return {
    id: key.id,
    upstream: key.upstream,
    label: key.label,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

/** GET /v1/host/relay-keys – the host's relay keys; the keys themselves are never returned. */
export async function handleListRelayKeys(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    const keys = await listRelayKeys(app.database.db, host.id);
    return jsonResponse({ relay_keys: keys.map(keyView) }, 200, { "cache-control": "no-store" });
  } catch (error) {
    return errorResponse("openai", error);
  }
}

/** POST /v1/host/relay-keys – store an upstream key, encrypted at rest (AES-256-GCM). */
export async function handleAddRelayKey(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    const encryptionKey = relayEncryptionKey(app.env);
    const body = await readHostBody(request, addKeySchema, app.env.MAX_BODY_BYTES);
    if (!isRelayUpstreamKind(body.upstream))
      throw new GatewayError("bad_request", "bad request: unknown upstream");
    const key = await addRelayKey(app.database.db, encryptionKey, {
      hostId: host.id,
      upstream: body.upstream,
      apiKey: body.api_key,
      label: body.label,
    });
    return jsonResponse(keyView(key), 201, { "cache-control": "no-store" });
  } catch (error) {
    return errorResponse("openai", error);
  }
}

/** DELETE /v1/host/relay-keys/<id> – revoke a key: its ciphertext is erased and its listings disabled. */
export async function handleRevokeRelayKey(
  app: AppContext,
  request: Request,
  relayKeyId: string,
): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    const id = relayKeyId.toLowerCase();
    if (!isUuid(id) || !(await revokeRelayKey(app.database.db, host.id, id))) {
      throw new GatewayError("not_found", "relay key not found");
    }
    return jsonResponse({ id, revoked: true });
  } catch (error) {
    return errorResponse("openai", error);
  }
}
