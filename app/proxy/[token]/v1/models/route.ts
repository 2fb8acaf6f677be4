// GET /proxy/<token>/v1/models – the model list in the OpenAI shape
import { handleModels } from "@/lib/handlers/models";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request, [token = ""]) => handleModels(app, request, token), ["token"]);
