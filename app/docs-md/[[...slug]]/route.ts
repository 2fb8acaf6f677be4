// GET /docs.md, /docs/<section>.md, /docs/<section>/<page>.md – raw Markdown (rewritten here by next.config.ts)
import { docsHandlers } from "@/lib/docs/handlers";

export const GET = async (request: Request, context: { params: Promise<{ slug?: string[] }> }) =>
  docsHandlers.pageMarkdown(request, ((await context.params).slug ?? []).join("/"));
