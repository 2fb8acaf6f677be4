// POST /v1/admin/auto-top-up/resume: defined in lib/api/routes.ts
import { nextRoute } from "@/next-route";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = nextRoute("/v1/admin/auto-top-up/resume");
