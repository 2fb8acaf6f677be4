// POST /dashboard/admin/session – sign an operator in to the console with the admin token; DELETE – sign out
import { getAppContext } from "@/compose-app";
import { handleOperatorSession } from "@/lib/dashboard/operator-session-handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = async (request: Request) => handleOperatorSession(await getAppContext(), request);
export const DELETE = POST;
