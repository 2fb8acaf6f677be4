// POST /v1/host/retire – drain, leave routing, start the bond cooldown
import { handleHostRetire } from "@/lib/handlers/host-earnings";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request) => handleHostRetire(app, request));
