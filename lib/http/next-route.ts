import { getAppContext } from "../app-context";
import type { ApiHandler } from "./api-routes";

interface RouteContext {
  params: Promise<Record<string, string | string[] | undefined>>;
}

/**
 * Adapts an API handler to a Next route export. The handler is the one server.ts calls,
 * so a route file is only its path and this wrapper.
 */
export function nextRoute(handler: ApiHandler, paramNames: string[] = []) {
  return async (request: Request, context: RouteContext): Promise<Response> => {
    const params = await context.params;
    const values = paramNames.map((name) => {
      const value = params[name];
      return Array.isArray(value) ? value.join("/") : (value ?? "");
    });
    return handler(await getAppContext(), request, values);
  };
}
