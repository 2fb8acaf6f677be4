import { getAppContext } from "./compose-app";
import { serveApiRequest } from "./lib/api/pipeline";
import { apiRoutes } from "./lib/api/routes";
import { BufferedResponse } from "./lib/http/buffered-response";
import { clientIpFromForwarded, clientIpHeader } from "./lib/http/client-ip";
import { StreamedResponse } from "./lib/http/streamed-response";

/** Next passes `{ params }` as a second argument; the manifest match reads the path itself. */
type RouteFileHandler = (request: Request, context?: unknown) => Promise<Response>;

/**
 * Next hands route files its own idea of the URL (`localhost:<port>` whatever the client
 * asked); links built from the request must name the host the client used, as server.ts does.
 */
function publicUrl(request: Request): URL {
  const url = new URL(request.url);
  const host = request.headers.get("host");
  if (host) url.host = host;
  return url;
}

function requestInit(request: Request): RequestInit {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return {
    method: request.method,
    body: hasBody ? request.body : null,
    signal: request.signal,
    // Required by undici for streaming request bodies.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit;
}

/**
 * The exports of an app/ route file, built from the manifest: every method goes through
 * the same pipeline server.ts uses (so a wrong method is the same JSON 405, OPTIONS the
 * same preflight). `path` is the manifest path the file serves; naming one the manifest
 * lacks fails the build instead of serving a route nobody defined.
 */
export function nextRoute(
  path: string,
): Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", RouteFileHandler> {
  if (!apiRoutes.some((route) => route.path === path)) throw new Error(`no API route is defined for ${path}`);
  const handle: RouteFileHandler = async (request) => {
    const app = await getAppContext();
    const headers = new Headers(request.headers);
    headers.set(clientIpHeader, clientIpFromForwarded(request.headers, app.env.TRUST_PROXY));
    const response = await serveApiRequest(
      app,
      new Request(publicUrl(request), { ...requestInit(request), headers }),
    );
    // Next reads the body through its own stream machinery: hand it an ordinary Response.
    if (response instanceof BufferedResponse)
      return new Response(response.bufferedText, { status: response.status, headers: response.headers });
    if (response instanceof StreamedResponse)
      return new Response(response.body, { status: response.status, headers: response.headers });
    return response;
  };
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}
