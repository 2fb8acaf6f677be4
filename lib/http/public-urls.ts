import type { AppContext } from "../app-context";

/** The address clients should use: PUBLIC_BASE_URL when set, else the origin the request came in on. */
export function publicBaseUrl(app: AppContext, request: Request): string {
  if (app.env.PUBLIC_BASE_URL) return app.env.PUBLIC_BASE_URL.replace(/\/+$/, "");
  return new URL(request.url).origin;
}
