// POST|PUT /dashboard/admin/act/<admin path> – an operator console action, run by the admin API's handler
import { getAppContext } from "@/compose-app";
import { handleConsoleAction } from "@/lib/api/console-action";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = async (request: Request) => handleConsoleAction(await getAppContext(), request);
export const PUT = POST;
