// GET /v1/models/:model/endpoints: defined in lib/api/routes.ts
import { nextRoute } from "@/next-route";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = nextRoute("/v1/models/:model/endpoints");
