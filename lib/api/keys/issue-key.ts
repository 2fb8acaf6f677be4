import {
  createKeyRequestSchema,
  type IssuedKeyResponse,
  updateKeyRequestSchema,
} from "@pod-gateway/contracts/account-keys";
import { publicBaseUrl } from "../../http/public-urls";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import { requireScope } from "../../tokens/key-scopes";
import {
  createKey as createAccountKey,
  type IssuedKey,
  keyViews,
  revokeKey as revokeAccountKey,
  rotateKey as rotateAccountKey,
  updateKey as updateAccountKey,
} from "../../tokens/manage-keys";
import type { ApiCall } from "../route-definition";

async function issued(call: ApiCall<"token">, key: IssuedKey, status: number): Promise<Response> {
  const [view] = await keyViews(call.app.database.db, call.app.keyLimits, [key.row]);
  if (!view) throw new Error("no view of the issued key");
  const body: IssuedKeyResponse = {
    key: view,
    api_key: key.secret,
    base_url: `${publicBaseUrl(call.app, call.request)}/proxy/${key.secret}/v1`,
  };
  return jsonResponse(body, status, { "cache-control": "no-store" });
}

/** POST /proxy/<token>/keys – a further key with a label and an optional daily or monthly limit. */
export async function createKey(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  const input = await readValidatedJson(call.request, createKeyRequestSchema, call.bodyLimit);
  return issued(call, await createAccountKey(call.app.database.db, call.principal, input), 201);
}

/** POST /proxy/<token>/keys/<id>/rotate – a new secret for the key; the old one is refused from now on. */
export async function rotateKey(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  return issued(
    call,
    await rotateAccountKey(call.app.database.db, call.principal, call.params.id ?? ""),
    200,
  );
}

/** POST /proxy/<token>/keys/<id>/revoke – the key is refused from now on (its spend stays listed). */
export async function revokeKey(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  const row = await revokeAccountKey(call.app.database.db, call.principal, call.params.id ?? "");
  const [view] = await keyViews(call.app.database.db, call.app.keyLimits, [row]);
  return jsonResponse({ key: view }, 200, { "cache-control": "no-store" });
}

/** PATCH /proxy/<token>/keys/<id> – a new label or limit (`"limit": null` lifts it). */
export async function updateKey(call: ApiCall<"token">): Promise<Response> {
  requireScope(call.principal, "manage");
  const input = await readValidatedJson(call.request, updateKeyRequestSchema, call.bodyLimit);
  const row = await updateAccountKey(call.app.database.db, call.principal, call.params.id ?? "", input);
  const [view] = await keyViews(call.app.database.db, call.app.keyLimits, [row]);
  return jsonResponse({ key: view }, 200, { "cache-control": "no-store" });
}
