// POST /v1/admin/hosts/<provider_id>/suspend – an operator takes a host out of routing
import { handleHostStatusChange } from "@/lib/handlers/host-status";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute(
  (app, request, [id = ""]) => handleHostStatusChange(app, request, id, "suspended"),
  ["id"],
);
