// GET /docs/<section>/<page>.md – raw Markdown of a docs page (rewritten here by next.config.ts)
import { docsHandlers } from "@/lib/docs/handlers";

export const GET = async (request: Request, context: { params: Promise<{ slug: string[] }> }) =>
  docsHandlers.pageMarkdown(request, (await context.params).slug.join("/"));
