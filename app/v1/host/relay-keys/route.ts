// GET, POST /v1/host/relay-keys – list or add the host's upstream keys (encrypted at rest, never returned)
import { handleAddRelayKey, handleListRelayKeys } from "@/lib/handlers/host-relay-keys";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request) => handleListRelayKeys(app, request));
export const POST = nextRoute((app, request) => handleAddRelayKey(app, request));
