import type { Services } from "../services";
import type { ApiRequest } from "./api-request";

/** The address clients should use: PUBLIC_BASE_URL when set, else the origin the request came in on. */
export function publicBaseUrl(app: Pick<Services, "env">, request: ApiRequest): string {
  if (app.env.PUBLIC_BASE_URL) return app.env.PUBLIC_BASE_URL.replace(/\/+$/, "");
  return new URL(request.url).origin;
}
