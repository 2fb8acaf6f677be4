// POST /proxy/x402/v1/images/edits: defined in lib/api/routes.ts
import { nextRoute } from "@/next-route";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = nextRoute("/proxy/x402/v1/images/edits");
