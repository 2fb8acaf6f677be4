// POST /v1/admin/credits – an operator's manual credit through the ledger
import { handleAdminCredit } from "@/lib/handlers/admin-credits";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request) => handleAdminCredit(app, request));
