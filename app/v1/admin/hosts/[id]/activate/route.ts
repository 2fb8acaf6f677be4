// POST /v1/admin/hosts/<provider_id>/activate – an operator makes a host routable
import { handleHostStatusChange } from "@/lib/handlers/host-status";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute(
  (app, request, [id = ""]) => handleHostStatusChange(app, request, id, "active"),
  ["id"],
);
