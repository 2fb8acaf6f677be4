// GET /llms-full.txt – the whole docs corpus as one Markdown file
import { docsHandlers } from "@/lib/docs/handlers";

export const GET = (request: Request) => docsHandlers.llmsFull(request);
