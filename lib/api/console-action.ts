import { operatorCookieValue, verifyOperatorSession } from "../dashboard/operator-session";
import { assertSameOrigin } from "../dashboard/session-handler";
import { badRequest, GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { readBodyText } from "../http/read-body";
import { errorResponse } from "../http/responses";
import { newId } from "../ids";
import { operatorHeader } from "../operator-log/operator-actions";
import type { ApiServices } from "./api-services";
import { serveApiRequest } from "./pipeline";

const consolePrefix = "/dashboard/admin/act/";
const adminPath = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,300}$/;
const bodyLimit = 64 * 1024;

/**
 * POST|PUT /dashboard/admin/act/<path> – an operator console action: the admin API's own
 * handler for /v1/admin/<path>, run through the same pipeline, for a browser signed in to the
 * console. The browser never holds the admin token: its signed session cookie names the
 * operator, and the action is logged under that name (`x-pod-operator`; a body may not name
 * someone else as `actor`). Same-origin JSON only, so another site cannot ride on the cookie.
 */
export async function handleConsoleAction(app: ApiServices, request: ApiRequest): Promise<Response> {
  try {
    assertSameOrigin(app, request);
    const session = verifyOperatorSession(
      app.env.ADMIN_TOKEN,
      operatorCookieValue(request.headers.get("cookie")),
      new Date(),
    );
    if (!session || !app.env.ADMIN_TOKEN)
      throw new GatewayError("unauthorized", "sign in to the operator console with the admin token first");
    if (request.method !== "POST" && request.method !== "PUT")
      throw new GatewayError("method_not_allowed", "console actions are POST or PUT");
    if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json"))
      throw badRequest("console actions send JSON");
    const url = new URL(request.url);
    const path = url.pathname.startsWith(consolePrefix) ? url.pathname.slice(consolePrefix.length) : "";
    if (!adminPath.test(path) || path.split("/").includes(".."))
      throw new GatewayError("not_found", "no such console action");
    const text = await readBodyText(request, bodyLimit);
    const body: unknown = text === "" ? {} : JSON.parse(text);
    if (typeof body === "object" && body !== null && "actor" in body)
      throw badRequest("the console logs actions under the signed-in operator; send no actor");
    return await serveApiRequest(
      app,
      new Request(`${url.origin}/v1/admin/${path}${url.search}`, {
        method: request.method,
        headers: {
          authorization: `Bearer ${app.env.ADMIN_TOKEN}`,
          "content-type": "application/json",
          [operatorHeader]: session.operator,
        },
        ...(text === "" ? {} : { body: text }),
      }),
    );
  } catch (error) {
    const thrown = error instanceof SyntaxError ? badRequest("the body is not JSON") : error;
    return errorResponse("openai", thrown, newId("req"), { "cache-control": "no-store" });
  }
}
