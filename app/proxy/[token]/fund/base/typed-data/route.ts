// GET /proxy/<token>/fund/base/typed-data: defined in lib/api/routes.ts
import { nextRoute } from "@/next-route";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = nextRoute("/proxy/:token/fund/base/typed-data");
