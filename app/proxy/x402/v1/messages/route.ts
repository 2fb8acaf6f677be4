// POST /proxy/x402/v1/messages – Anthropic-dialect inference paid per request with x402
import { handleX402Inference } from "@/lib/handlers/x402-inference";
import { nextRoute } from "@/lib/http/next-route";
import { x402PreflightResponse } from "@/lib/x402/cors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request) => handleX402Inference(app, request, "anthropic"));
export const OPTIONS = async (request: Request) => x402PreflightResponse(request);
