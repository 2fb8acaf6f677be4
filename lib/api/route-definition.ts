import type { Host } from "../db/schema";
import type { Dialect } from "../dialects/dialect";
import type { ApiRequest } from "../http/api-request";
import type { TokenRecord } from "../tokens/find-token";
import type { ApiServices } from "./api-services";

/**
 * Who may call a route, checked by the pipeline before the handler runs:
 * - none: public;
 * - token: the prepaid token in the `:token` path segment (401 when unknown);
 * - host: `Authorization: Bearer pod_host_…`;
 * - admin: `Authorization: Bearer <ADMIN_TOKEN>` (404 while the admin API is disabled);
 * - x402: no credential; the handler asks for and settles a payment.
 */
export type AuthKind = "none" | "token" | "host" | "admin" | "x402";

/** What the pipeline's authentication hands the handler, per kind. */
export interface Principals {
  none: undefined;
  token: TokenRecord;
  host: Host;
  admin: undefined;
  x402: undefined;
}

type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One request as a handler sees it, after the pipeline's checks. */
export interface ApiCall<A extends AuthKind = AuthKind> {
  app: ApiServices;
  request: ApiRequest;
  /** Decoded `:name` path segments. */
  params: Readonly<Record<string, string>>;
  /** Also in the response headers and every error body; handlers put it in logs and ledger metadata. */
  requestId: string;
  dialect: Dialect;
  principal: Principals[A];
  /** The route's body limit in bytes. */
  bodyLimit: number;
}

export interface RouteDefinition<A extends AuthKind = AuthKind> {
  method: HttpMethod;
  /** `/literal/:param/…`; a `:param` matches one non-empty segment. */
  path: string;
  auth: A;
  /** The envelope errors are rendered in: the SDK that calls this route reads it. */
  dialect: Dialect;
  /** Largest accepted body in bytes; "env" is MAX_BODY_BYTES; 0 for routes that read none. */
  bodyLimit: number | "env";
  handler(call: ApiCall<A>): Promise<Response>;
}

/** Keeps each entry's handler typed by its auth kind, then erases the kind for the table. */
export function defineRoute<A extends AuthKind>(definition: RouteDefinition<A>): RouteDefinition {
  return definition as unknown as RouteDefinition;
}
