// DELETE /v1/host/relay-keys/<id> – revoke a relay key and disable its listings
import { handleRevokeRelayKey } from "@/lib/handlers/host-relay-keys";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const DELETE = nextRoute((app, request, [id = ""]) => handleRevokeRelayKey(app, request, id), ["id"]);
