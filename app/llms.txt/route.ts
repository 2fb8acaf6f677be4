// GET /llms.txt – index of every docs page by section (llmstxt.org)
import { docsHandlers } from "@/lib/docs/handlers";

export const GET = (request: Request) => docsHandlers.llmsTxt(request);
