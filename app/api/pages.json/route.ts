// GET /api/pages.json – JSON manifest of every docs page (spec 2.6)
import { docsHandlers } from "@/lib/docs/handlers";

export const GET = (request: Request) => docsHandlers.pagesJson(request);
