// GET /proxy/:token/receipts/:id: defined in lib/api/routes.ts
import { nextRoute } from "@/next-route";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = nextRoute("/proxy/:token/receipts/:id");
