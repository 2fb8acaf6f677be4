// POST /v1/register – mint a prepaid token and its deposit code
import { handleRegister } from "@/lib/handlers/register";
import { nextRoute } from "@/lib/http/next-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const POST = nextRoute((app, request) => handleRegister(app, request));
