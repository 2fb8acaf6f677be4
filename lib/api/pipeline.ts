import type { Dialect } from "../dialects/dialect";
import { errorDialectOfPath } from "../dialects/wire-format";
import { GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { corsHeaders, preflightResponse } from "../http/cors";
import { errorResponse, requestIdHeader } from "../http/responses";
import { newId } from "../ids";
import { extractTraceContext, inSpan, SpanKind, tracingOn } from "../telemetry/tracing";
import type { ApiServices } from "./api-services";
import { authenticate } from "./authenticate";
import { createRouteMatcher } from "./match-route";
import type { RouteDefinition } from "./route-definition";
import { apiRoutes } from "./routes";

const matcher = createRouteMatcher(apiRoutes);

/** True for paths the API owns (`/v1/…`, `/proxy/…`, `/health`): never handed to Next's pages. */
export function isApiPath(pathname: string): boolean {
  return matcher.owns(pathname);
}

function redactedPath(pathname: string): string {
  return pathname.replace(/^\/proxy\/[^/]+/, (prefix) =>
    prefix === "/proxy/x402" ? prefix : "/proxy/<token>",
  );
}

/**
 * Adds what every API response carries: CORS headers and the request id (in the header the
 * dialect's SDK reads, unless the handler already set one). Relayed upstream responses have
 * immutable headers, so those are copied once.
 */
function finish(response: Response, dialect: Dialect, requestId: string): Response {
  const decorate = (headers: Headers) => {
    headers.set("access-control-allow-origin", "*");
    if (!headers.has("access-control-expose-headers"))
      headers.set("access-control-expose-headers", corsHeaders["access-control-expose-headers"] ?? "");
    if (!headers.has("x-request-id") && !headers.has("request-id"))
      headers.set(requestIdHeader(dialect), requestId);
  };
  try {
    decorate(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    decorate(copy.headers);
    return copy;
  }
}

function bodyLimitOf(app: ApiServices, route: RouteDefinition): number {
  return route.bodyLimit === "env" ? app.env.MAX_BODY_BYTES : route.bodyLimit;
}

/** Runs one matched route: body limit, authentication, the handler, and the one error renderer. */
async function runRoute(
  app: ApiServices,
  route: RouteDefinition,
  request: ApiRequest,
  params: Record<string, string>,
  requestId: string,
): Promise<Response> {
  try {
    const bodyLimit = bodyLimitOf(app, route);
    // Routes that read no body ignore one; the others refuse an oversize body before reading it.
    if (bodyLimit > 0 && Number(request.headers.get("content-length") ?? "0") > bodyLimit)
      throw new GatewayError("payload_too_large", `request body exceeds ${bodyLimit} bytes`);
    const principal = await authenticate(route.auth, app, request, params);
    // Another replica changed a price: this request is priced with the new catalog, not the old.
    const reloading = app.catalogStore.reloading;
    if (reloading) await reloading;
    const response = await route.handler({
      app,
      request,
      params,
      requestId,
      dialect: route.dialect,
      principal,
      bodyLimit,
    });
    return finish(response, route.dialect, requestId);
  } catch (error) {
    return finish(errorResponse(route.dialect, error, requestId), route.dialect, requestId);
  }
}

/**
 * The one request pipeline of the API, for server.ts and the app/ route files alike:
 * preflight, route match (JSON 404/405 in the path's dialect), then the route itself.
 * The request target was already checked (canonical path, known method) by the caller.
 */
export async function serveApiRequest(app: ApiServices, request: ApiRequest): Promise<Response> {
  const requestId = newId("req");
  const pathname = request.pathname ?? new URL(request.url).pathname;
  if (request.method === "OPTIONS") return finish(preflightResponse(request), "openai", requestId);
  let match: ReturnType<typeof matcher.match>;
  try {
    match = matcher.match(request.method, pathname);
  } catch (error) {
    const dialect = errorDialectOfPath(pathname);
    return finish(errorResponse(dialect, error, requestId), dialect, requestId);
  }
  if (match.type === "matched") {
    const { route, params } = match;
    if (!tracingOn()) return runRoute(app, route, request, params, requestId);
    // The caller's traceparent, when it sent one, is the parent: its trace goes on through us.
    const parent = extractTraceContext({
      traceparent: request.headers.get("traceparent") ?? undefined,
      tracestate: request.headers.get("tracestate") ?? undefined,
    });
    return inSpan(
      `${request.method} ${route.path}`,
      { "http.request.method": request.method, "http.route": route.path, "pod.request_id": requestId },
      async (span) => {
        const response = await runRoute(app, route, request, params, requestId);
        span?.setAttribute("http.response.status_code", response.status);
        return response;
      },
      { kind: SpanKind.SERVER, ...(parent ? { parent } : {}) },
    );
  }
  if (match.type === "method_not_allowed") {
    const error = new GatewayError(
      "method_not_allowed",
      `method ${request.method} not allowed on ${redactedPath(pathname)}`,
      { headers: { allow: [...match.allowed, "OPTIONS"].join(", ") } },
    );
    return finish(errorResponse(match.route.dialect, error, requestId), match.route.dialect, requestId);
  }
  const dialect = errorDialectOfPath(pathname);
  const error = new GatewayError("not_found", "not found: no such endpoint");
  return finish(errorResponse(dialect, error, requestId), dialect, requestId);
}
