// POST /v1/admin/payouts/<id>/approve – release a withdrawal held for review
import { handleApprovePayout } from "@/lib/handlers/host-earnings";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request, [id = ""]) => handleApprovePayout(app, request, id), ["id"]);
