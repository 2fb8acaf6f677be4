// POST /v1/host/enroll – enrol a host: host token, provider id and bond deposit code
import { handleHostEnroll } from "@/lib/handlers/host-enroll";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request) => handleHostEnroll(app, request));
