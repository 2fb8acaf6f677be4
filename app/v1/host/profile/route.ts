// GET /v1/host/profile – the calling host's status and bond instructions
import { handleHostProfile } from "@/lib/handlers/host-profile";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request) => handleHostProfile(app, request));
