// GET /health – database and upstream status
import { handleHealth } from "@/lib/handlers/health";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app) => handleHealth(app));
