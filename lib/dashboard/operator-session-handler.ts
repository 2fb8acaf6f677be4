import { badRequest, GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { readJsonBody } from "../http/read-body";
import { errorResponse, jsonResponse } from "../http/responses";
import { newId } from "../ids";
import { parseOperatorName } from "../operator-log/operator-actions";
import type { Services } from "../services";
import {
  clearedOperatorSessionCookie,
  isAdminToken,
  operatorSessionCookie,
  signOperatorSession,
} from "./operator-session";
import { assertSameOrigin, isSecure } from "./session-handler";

/**
 * POST /dashboard/admin/session {admin_token, operator} signs an operator's browser in to the
 * console; DELETE signs it out. Same-origin JSON only, as the person's sign-in. Without
 * ADMIN_TOKEN there is no console, as there is no admin API.
 */
export async function handleOperatorSession(app: Services, request: ApiRequest): Promise<Response> {
  const secure = isSecure(app, request);
  try {
    assertSameOrigin(app, request);
    if (request.method === "DELETE") {
      return new Response(null, {
        status: 204,
        headers: { "set-cookie": clearedOperatorSessionCookie(secure) },
      });
    }
    if (request.method !== "POST") throw new GatewayError("method_not_allowed", "use POST or DELETE");
    if (!app.env.ADMIN_TOKEN)
      throw new GatewayError("not_found", "the operator console is off: ADMIN_TOKEN is not set");
    if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json"))
      throw badRequest('send JSON: {"admin_token": "…", "operator": "your name"}');
    const body = await readJsonBody(request, 4096);
    const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
    const operator = parseOperatorName(fields.operator);
    if (operator === undefined)
      throw badRequest("operator: your name for the logs (letters, digits, spaces and ._@-, up to 60)", {
        param: "operator",
      });
    if (
      typeof fields.admin_token !== "string" ||
      !isAdminToken(app.env.ADMIN_TOKEN, fields.admin_token.trim())
    )
      throw new GatewayError("unauthorized", "that is not this gateway's admin token");
    return jsonResponse({ signed_in: true, operator }, 200, {
      "set-cookie": operatorSessionCookie(
        signOperatorSession(app.env.ADMIN_TOKEN, operator, new Date()),
        secure,
      ),
      "cache-control": "no-store",
    });
  } catch (error) {
    return errorResponse("openai", error, newId("req"), { "cache-control": "no-store" });
  }
}
