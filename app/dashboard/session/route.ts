// POST /dashboard/session – sign a browser in with a token in the body; DELETE – sign out
import { getAppContext } from "@/compose-app";
import { handleDashboardSession } from "@/lib/dashboard/session-handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = async (request: Request) => handleDashboardSession(await getAppContext(), request);
export const DELETE = POST;
