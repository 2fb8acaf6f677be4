// PUT /v1/admin/catalog/models/:model/prices/:provider: defined in lib/api/routes.ts
import { nextRoute } from "@/next-route";

export const dynamic = "force-dynamic";
// biome-ignore format: the route-parity test reads the manifest path from this one line
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = nextRoute("/v1/admin/catalog/models/:model/prices/:provider");
